"""``python -m bench.league`` rates the AI levels and Simple from their matches: the shape of
its printout, and the table module it writes (the one the lobby shows)."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from bench import league
from protocol import ai_ratings


def _rows(text: str) -> list[list[str]]:
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if tuple(line.split()[:4]) == league.HEADER)
    return [line.split() for line in lines[header + 1 : header + 1 + len(league.PLAYERS)]]


def test_a_tiny_league_prints_each_player_rated_with_its_shares_against_the_others(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    written = tmp_path / "ratings.py"
    argv = ["--matches", "12", "--period", "1", "--seed", "3", "--write", str(written)]
    assert league.main(argv) == 0
    text = capsys.readouterr().out
    assert text.startswith(
        "League of easy, simple, normal, hard: 12 matches to 100 (6 duplicate pairs; "
        "2 matches a pairing), in 1 rating period of 12 matches\n"
    )
    rows = _rows(text)
    columns = ["vs " + player for player in league.PLAYERS]
    assert sorted(row[0] for row in rows) == sorted(league.PLAYERS)
    ratings = {row[0]: float(row[1]) for row in rows}
    assert list(ratings.values()) == sorted(ratings.values(), reverse=True)
    assert ratings["simple"] == 1500  # the anchor
    assert len(set(ratings.values())) > 1
    shares: dict[tuple[str, str], float] = {}
    for row in rows:
        player, _rating, rd, matches = row[:4]
        assert 45 <= float(rd) <= 500
        assert int(matches) == 6  # two matches (one duplicate pair) against each of three
        cells = row[4 : 4 + len(columns)]
        for other, cell in zip(league.PLAYERS, cells, strict=True):
            if other == player:
                assert cell == "-"
            else:
                assert re.fullmatch(r"\d+\.\d%", cell), cell
                shares[player, other] = float(cell[:-1])
        per_hand, net = row[-2:]
        assert float(per_hand) >= 0 and re.fullmatch(r"[+-]\d+\.\d\d", net)
    for (a, b), share in shares.items():
        assert share + shares[b, a] == pytest.approx(100)
    table = runpy.run_path(str(written))
    assert dict(table["RATINGS"]) == {p: int(round(r, -1)) for p, r in ratings.items()}
    assert set(table["LEVEL_RATINGS"]) == {"easy", "normal", "hard"}


def test_the_lobby_table_is_the_league_s_writing_with_its_command() -> None:
    """``protocol/ai_ratings.py`` is what ``--write`` gives for its ratings, so the command in
    its docstring is the one that made it."""
    path = Path(ai_ratings.__file__)
    source = path.read_text()
    command = " ".join(
        line.strip().rstrip("\\").strip()
        for line in source.split("::\n\n", 1)[1].split('"""', 1)[0].strip().splitlines()
    )
    assert command.startswith("python -m bench.league ")
    assert "--write protocol/ai_ratings.py" in command
    args = command.split()[3:]
    parsed = league.parser().parse_args(args)
    assert league.table_module(dict(ai_ratings.RATINGS), league.command(parsed)) == source
