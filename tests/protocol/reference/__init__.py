"""The codec and the messages as they were before the decoding fast path (issue #3): frozen
copies, the reference of ``test_codec_differential.py``, which holds the live ``protocol.codec``
to exactly the same results and the same errors. Never edit them to follow the live modules:
they are what the live modules must agree with. A deliberate change of the protocol (a new
message or field) makes them disagree for good: then delete this package with the
differential test rather than edit the copies (the fast path's own tests stay)."""
