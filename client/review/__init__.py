"""Reviews of finished hands: each decision judged from what its player knew, by expected
hand points against the best choice (``docs/review.md``). ``python -m client.review`` runs
the review worker; it imports neither the server nor Redis."""
