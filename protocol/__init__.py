"""What every party shares: cards, melds, scoring, the wire messages and their codec."""
