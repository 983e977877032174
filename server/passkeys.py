"""Passkeys (WebAuthn, package ``webauthn``): the options of the two ceremonies and the
checks of their answers. The relying party is the public origin (``GIN_PUBLIC_ORIGIN``): an
answer signed for another origin or RP ID is refused. Challenges are made here and kept by
the caller (``server.accounts``: used once, expiring).

Everything a client sends is untrusted: any malformed answer raises ``BadPasskey`` with what
was wrong, never another exception.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

RP_NAME = "Gin Rummy"
#: How long a ceremony may take, in the browser (ms) and for its challenge in Redis (s).
TIMEOUT_MS = 120_000
CHALLENGE_TTL_SECONDS = 120
#: The largest answer read (a credential's JSON): an attestation is a few kilobytes.
MAX_CREDENTIAL_BYTES = 16 * 1024


class BadPasskey(ValueError):
    """A WebAuthn answer refused; the message says why."""


@dataclass(frozen=True, slots=True)
class RelyingParty:
    """Who the passkeys are for: the public origin and its host (the RP ID)."""

    origin: str
    rp_id: str


@dataclass(frozen=True, slots=True)
class NewPasskey:
    """A verified registration: what is kept to check later sign-ins."""

    credential_id: str
    public_key: str
    sign_count: int

    def stored(self) -> str:
        return json.dumps({"key": self.public_key, "count": self.sign_count})


def challenge_digest(challenge: bytes) -> str:
    """The key-safe name of a challenge (``server.keys.webauthn_challenge``)."""
    return hashlib.sha256(challenge).hexdigest()[:40]


def registration_options(
    party: RelyingParty, player_id: str, handle: str, existing: list[str]
) -> tuple[dict[str, Any], bytes]:
    """The options of ``navigator.credentials.create`` (as JSON data) and their challenge.
    The user handle is the player id; the passkey is discoverable (sign-in needs no handle)."""
    options = generate_registration_options(
        rp_id=party.rp_id,
        rp_name=RP_NAME,
        user_id=player_id.encode(),
        user_name=handle,
        user_display_name=handle,
        timeout=TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=_b64decode(cred)) for cred in existing
        ],
    )
    return json.loads(options_to_json(options)), options.challenge


def authentication_options(party: RelyingParty) -> tuple[dict[str, Any], bytes]:
    """The options of ``navigator.credentials.get`` (discoverable credentials: no list)."""
    options = generate_authentication_options(
        rp_id=party.rp_id,
        timeout=TIMEOUT_MS,
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    return json.loads(options_to_json(options)), options.challenge


def answered_challenge(credential: object) -> bytes:
    """The challenge an answer says it signs (from its ``clientDataJSON``), to find its
    record; the signature itself is checked later, against the record's challenge."""
    data = _client_data(credential)
    challenge = data.get("challenge")
    if not isinstance(challenge, str):
        raise BadPasskey("clientDataJSON has no challenge")
    return _b64decode(challenge, "challenge")


def user_handle(credential: object) -> str:
    """The player id an authentication answer names (its ``userHandle``)."""
    response = _response(credential)
    raw = response.get("userHandle")
    if not isinstance(raw, str) or not raw:
        raise BadPasskey("the answer names no user (response.userHandle)")
    try:
        return _b64decode(raw, "userHandle").decode("ascii")
    except UnicodeDecodeError:
        raise BadPasskey("response.userHandle is not a player id") from None


def credential_id(credential: object) -> str:
    _check(credential)
    assert isinstance(credential, dict)
    raw = credential.get("rawId", credential.get("id"))
    if not isinstance(raw, str) or not raw:
        raise BadPasskey("the answer has no credential id")
    return bytes_to_base64url(_b64decode(raw, "rawId"))


def verify_registration(party: RelyingParty, credential: object, challenge: bytes) -> NewPasskey:
    _check(credential)
    try:
        verified = verify_registration_response(
            credential=credential,  # type: ignore[arg-type]
            expected_challenge=challenge,
            expected_rp_id=party.rp_id,
            expected_origin=party.origin,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError, AttributeError) as error:
        raise BadPasskey(f"the passkey was not accepted: {_reason(error)}") from None
    return NewPasskey(
        credential_id=bytes_to_base64url(verified.credential_id),
        public_key=bytes_to_base64url(verified.credential_public_key),
        sign_count=verified.sign_count,
    )


def verify_authentication(
    party: RelyingParty, credential: object, challenge: bytes, stored: str
) -> int:
    """Check a sign-in answer against the stored passkey; its new sign count."""
    _check(credential)
    try:
        kept = json.loads(stored)
        verified = verify_authentication_response(
            credential=credential,  # type: ignore[arg-type]
            expected_challenge=challenge,
            expected_rp_id=party.rp_id,
            expected_origin=party.origin,
            credential_public_key=_b64decode(kept["key"]),
            credential_current_sign_count=int(kept["count"]),
        )
    except (WebAuthnException, ValueError, KeyError, TypeError, AttributeError) as error:
        raise BadPasskey(f"the passkey was not accepted: {_reason(error)}") from None
    return int(verified.new_sign_count)


def updated(stored: str, sign_count: int) -> str:
    kept = json.loads(stored)
    kept["count"] = sign_count
    return json.dumps(kept)


def _reason(error: Exception) -> str:
    text = str(error) or type(error).__name__
    return text[:200]


def _check(credential: object) -> None:
    if not isinstance(credential, dict):
        raise BadPasskey("credential must be a JSON object (PublicKeyCredential.toJSON())")
    if len(json.dumps(credential)) > MAX_CREDENTIAL_BYTES:
        raise BadPasskey(f"a credential is at most {MAX_CREDENTIAL_BYTES} bytes of JSON")


def _response(credential: object) -> dict[str, Any]:
    _check(credential)
    assert isinstance(credential, dict)
    response = credential.get("response")
    if not isinstance(response, dict):
        raise BadPasskey("credential.response must be an object")
    return response


def _client_data(credential: object) -> dict[str, Any]:
    raw = _response(credential).get("clientDataJSON")
    if not isinstance(raw, str):
        raise BadPasskey("response.clientDataJSON must be a base64url string")
    try:
        data = json.loads(_b64decode(raw, "clientDataJSON"))
    except (ValueError, UnicodeDecodeError):
        raise BadPasskey("response.clientDataJSON is not JSON") from None
    if not isinstance(data, dict):
        raise BadPasskey("response.clientDataJSON is not a JSON object")
    return data


def _b64decode(text: str, what: str = "value") -> bytes:
    if not isinstance(text, str) or len(text) > MAX_CREDENTIAL_BYTES:
        raise BadPasskey(f"{what} must be a base64url string")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise BadPasskey(f"{what} is not base64url") from None
