"""Hands with known deadwood, for positions built with ``helpers.position``."""

#: 11 cards; discarding KD leaves AH 2S 3H 4S: 10 deadwood points.
KNOCK_AT_10 = "AH 2S 3H 4S 4D 5D 6D 7H 7S 7C KD"
#: 11 cards; the best discard (KD) leaves AH 2S 3H 5S: 11 deadwood points.
KNOCK_AT_11 = "AH 2S 3H 5S 4D 5D 6D 7H 7S 7C KD"
#: 11 cards; discarding KD leaves AC-4C, 4D-6D, 7H 7S 7C: no deadwood.
GIN = "AC 2C 3C 4C 4D 5D 6D 7H 7S 7C KD"
#: 10 cards, no meld and nothing to lay off on the hands above: 79 deadwood points.
DEFENDER_79 = "8H 9S TD JC QH KS 2D 5C 6S 9C"
#: 10 cards, three runs and the AS: 1 deadwood point.
DEFENDER_1 = "8H 9H TH JS QS KS 8C 9C TC AS"
#: 10 cards, three runs and the QD: 10 deadwood points.
DEFENDER_10 = "8H 9H TH JS QS KS 8C 9C TC QD"
