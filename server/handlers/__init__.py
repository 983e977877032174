"""The request handlers, by concern: who is speaking and the lobby (``players``), rooms and
seats (``rooms``), moves (``play``), AI workers (``workers``). Each returns its ``Reply`` or
raises ``RequestFailed``; ``server.service`` dispatches the requests to them."""
