import pytest

from protocol.cards import (
    DECK,
    card_index,
    card_value,
    from_mask,
    parse_cards,
    sort_cards,
    to_mask,
)


def test_deck_has_52_distinct_cards_in_notation() -> None:
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    assert {"AS", "TD", "7H", "KC"} <= set(DECK)


@pytest.mark.parametrize(
    ("card", "value"),
    [("AS", 1), ("2C", 2), ("9H", 9), ("TD", 10), ("JC", 10), ("QH", 10), ("KS", 10)],
)
def test_card_values(card: str, value: int) -> None:
    assert card_value(card) == value


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("1S", "bad rank '1'"),
        ("AX", "bad suit 'X'"),
        ("10S", "2 characters"),
        ("as", "bad rank 'a'"),
        ("", "2 characters"),
        (7, "2-character string"),
    ],
)
def test_malformed_card_is_a_clear_value_error(bad: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        card_index(bad)  # type: ignore[arg-type]


def test_duplicate_cards_are_refused() -> None:
    with pytest.raises(ValueError, match="duplicate card 'AS'"):
        parse_cards(["AS", "2S", "AS"])


def test_parse_accepts_a_space_separated_string() -> None:
    assert parse_cards("AS TD 7H") == ["AS", "TD", "7H"]


def test_mask_round_trip_is_canonical_order() -> None:
    cards = ["KS", "AC", "TD", "2C"]
    assert from_mask(to_mask(cards)) == ("AC", "2C", "TD", "KS")
    assert sort_cards(cards) == ("AC", "2C", "TD", "KS")


def test_from_mask_refuses_bits_beyond_the_deck() -> None:
    with pytest.raises(ValueError, match="52-card mask"):
        from_mask(1 << 52)
