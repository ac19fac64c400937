"""The ratings' model held to a plain oracle written from the equations of
Weng & Lin (2011), Algorithm 4 (Plackett–Luce), never to openskill itself:
a two-seat game worked by hand, then three and five seats with shared
places and a withdrawn seat against ``oracle`` below; and the decisions of
domain/ratings.py (what is rated, the places, a withdrawn seat, the prior,
the number shown) on small cases and on whole bot games."""

from __future__ import annotations

import math
import random

import pytest

from domain.application import Opus
from domain.bots import BOTS
from domain.engine import rank_keys
from domain.pipeline import Caller
from domain.ratings import (
    BEFORE_ISSUE_35,
    PARAMETERS,
    Ledger,
    Parameters,
    RatedGame,
    RatedSeat,
    Sitting,
    differences,
    equal_table_shares,
    rate_game,
    rated_game,
    record,
    seat_id,
    shown,
)
from domain.tournaments.standings import places

Team = list[tuple[float, float]]


def oracle(
    teams: list[Team], ranks: list[int], *, beta: float, kappa: float, taus: list[list[float]]
) -> list[Team]:
    """Weng & Lin (2011), Algorithm 4 (Plackett–Luce), as written there:

    - every player's σ² gains its τ² first (the dynamics; ``taus`` by team
      and player);
    - a team's μ_i and σ_i² are its players' sums;
    - c = √Σ_i (σ_i² + β²);  C_q = {i : r(i) ≥ r(q)};  S_q = Σ_{s ∈ C_q} e^{μ_s / c};
      A_q = |{s : r(s) = r(q)}| (a shared rank);
    - Ω_i = (σ_i² / c) Σ_{q : r(q) ≤ r(i)} (1 / A_q) ([q = i] − e^{μ_i / c} / S_q);
    - Δ_i = γ_i (σ_i² / c²) Σ_{q : r(q) ≤ r(i)} (1 / A_q) p_iq (1 − p_iq),
      p_iq = e^{μ_i / c} / S_q, γ_i = σ_i / c;
    - each player j of team i: μ_j += (σ_j² / σ_i²) Ω_i,
      σ_j² ← σ_j² · max(1 − (σ_j² / σ_i²) Δ_i, κ)."""
    teams = [
        [(mu, math.sqrt(s * s + tau * tau)) for (mu, s), tau in zip(team, ts, strict=True)]
        for team, ts in zip(teams, taus, strict=True)
    ]
    mus = [sum(mu for mu, _ in team) for team in teams]
    variances = [sum(s * s for _, s in team) for team in teams]
    c = math.sqrt(sum(v + beta * beta for v in variances))
    e = [math.exp(mu / c) for mu in mus]
    k = range(len(teams))
    big_s = [sum(e[s] for s in k if ranks[s] >= ranks[q]) for q in k]
    big_a = [sum(1 for s in k if ranks[s] == ranks[q]) for q in k]
    updated = []
    for i in k:
        omega = delta = 0.0
        for q in k:
            if ranks[q] <= ranks[i]:
                p = e[i] / big_s[q]
                omega += ((1.0 if q == i else 0.0) - p) / big_a[q]
                delta += p * (1 - p) / big_a[q]
        omega *= variances[i] / c
        delta *= (math.sqrt(variances[i]) / c) * variances[i] / c**2
        updated.append(
            [
                (
                    mu + s * s / variances[i] * omega,
                    s * math.sqrt(max(1 - s * s / variances[i] * delta, kappa)),
                )
                for mu, s in teams[i]
            ]
        )
    return updated


def by_oracle(
    current: dict[str, tuple[float, float]], game: RatedGame, p: Parameters = PARAMETERS
) -> dict[str, tuple]:
    """The game rated by ``oracle``, with the README's decisions: a seat
    starts at (seat μ₀, seat σ₀), an account at (μ₀, σ₀); a person's skill
    drifts (τ), a seat's does not; with ``seat_scale`` 1 a seat's μ and σ
    are a settled table's, so in the game they are multiplied by
    r = √(Σ_teams (Σ_players σ² + β²) / (teams × β²)), and the seat's
    result divided by it."""
    teams = game.teams()
    before = [
        [current.get(m, (p.seat_mu, p.seat_sigma) if "/" in m else (p.mu, p.sigma)) for m in team]
        for team in teams
    ]
    r = 1.0
    if p.seat_scale:
        players = [
            sum(s * s for m, (_, s) in zip(t, b, strict=True) if "/" not in m)
            for t, b in zip(teams, before, strict=True)
        ]
        r = math.sqrt(sum(v + p.beta**2 for v in players) / (len(teams) * p.beta**2))
    before = [
        [(mu * r, s * r) if "/" in m else (mu, s) for m, (mu, s) in zip(t, b, strict=True)]
        for t, b in zip(teams, before, strict=True)
    ]
    taus = [[0.0 if "/" in m else p.tau for m in team] for team in teams]
    after = oracle(before, [s.place for s in game.seats], beta=p.beta, kappa=p.kappa, taus=taus)
    return {
        m: (mu / r, s / r) if "/" in m else (mu, s)
        for team, rs in zip(teams, after, strict=True)
        for m, (mu, s) in zip(team, rs, strict=True)
    }


def assert_close(
    got: dict[str, tuple[float, float]], expected: dict[str, tuple], tol: float
) -> None:
    assert set(got) == set(expected)
    for member, (mu, sigma) in expected.items():
        assert got[member][0] == pytest.approx(mu, abs=tol), member
        assert got[member][1] == pytest.approx(sigma, abs=tol), member


def test_two_new_players_worked_by_hand() -> None:
    """Two new accounts, seats 1 and 2 of a 2-player table, the first wins,
    under the model as recorded before issue 35 (seats at σ₀ 1 on the
    game's scale), which old records are still checked with. By hand:
    τ² = (1/12)² = 0.0069444 on the account's σ², not the seat's: the
    account's σ² = 69.4444 + 0.0069 = 69.4514, the seat's 1; a team's σ² =
    70.4514; c² = 2 (70.4514 + 17.3611) = 175.6250, c = 13.25236;
    equal μ, so e^{μ/c}/S_1 = 1/2. The winner: Ω = 70.4514 / c × (1 − 1/2)
    = 2.65807; γ = √70.4514 / c = 0.633361, Δ = γ × (70.4514 / c²) × (1/2 ×
    1/2) = 0.633361 × 0.401147 / 4 = 0.063518; the loser's Ω is −2.65807,
    its Δ the same (its second term, 1 − 1, is 0). The account's share of
    its team's σ² is 0.985806, the seat's 0.014194: the winner's μ 25 +
    0.985806 × 2.65807 = 27.62034, σ √(69.4514 × (1 − 0.985806 × 0.063518))
    = 8.06862; its seat's μ 0.014194 × 2.65807 = 0.037729, σ √(1 × (1 −
    0.014194 × 0.063518)) = 0.999549; the loser and its seat the mirror
    image."""
    game = RatedGame("g", 9, 2, (RatedSeat(0, "ada", 1), RatedSeat(1, "bob", 2)))
    after = rate_game(BEFORE_ISSUE_35, {}, game)
    assert_close(
        after,
        {
            "ada": (27.62034, 8.06862),
            "0/2": (0.037729, 0.999549),
            "bob": (22.37966, 8.06862),
            "1/2": (-0.037729, 0.999549),
        },
        tol=5e-5,
    )
    assert_close(after, by_oracle({}, game, BEFORE_ISSUE_35), tol=1e-12)


def test_two_new_players_with_the_seats_on_a_settled_tables_scale() -> None:
    """The same game under today's model. By hand: each team's players' σ²
    is 69.4444 (τ² is the library's, not the scale's), so r = √(2 (69.4444
    + 17.3611) / (2 × 17.3611)) = √5 = 2.236068: each seat enters at μ 0,
    σ 1.5 r = 3.354102 (σ² 11.25 less τ² 0.006944, to which the library
    adds τ² back: 11.25); a team's σ² = 69.4514 + 11.25 = 80.7014; c² = 2
    (80.7014 + 17.3611) = 196.1250, c = 14.00446. Winner: Ω = 80.7014 / c /
    2 = 2.88127; the seat's share of its team's σ² 11.25 / 80.7014 =
    0.139403, so its μ on the game's scale 0.401658, kept as 0.401658 / r =
    0.179627; γ = √80.7014 / c = 0.641467, Δ = γ × 80.7014 / c² / 4 =
    0.065988; its σ √(11.25 (1 − 0.139403 × 0.065988)) = 3.338639, kept as
    1.493085."""
    game = RatedGame("g", 9, 2, (RatedSeat(0, "ada", 1), RatedSeat(1, "bob", 2)))
    after = rate_game(PARAMETERS, {}, game)
    assert PARAMETERS.seat_sigma == 1.5 and PARAMETERS.seat_scale == 1.0
    assert after["0/2"] == pytest.approx((0.179627, 1.493085), abs=5e-6)
    assert after["1/2"] == pytest.approx((-0.179627, 1.493085), abs=5e-6)
    assert_close(after, by_oracle({}, game), tol=1e-12)


MODELS = pytest.mark.parametrize(
    "params", [PARAMETERS, BEFORE_ISSUE_35], ids=["seats settled", "before issue 35"]
)


@MODELS
def test_three_seats_with_a_shared_first_place(params: Parameters) -> None:
    """Seats 1 and 2 share the first place (R7.3's ties), seat 3 is last;
    the three start apart and one seat pseudo-player has a history."""
    current = {"ada": (28.0, 4.0), "bob": (22.5, 6.1), "cy": (25.0, 25 / 3), "0/3": (0.7, 1.2)}
    game = rated_game("g", 20, ["ada", "bob", "cy"], [(30, 2, 4), (30, 2, 4), (19, 5, 1)], [])
    assert game is not None
    assert [s.place for s in game.seats] == [1, 1, 3]
    after = rate_game(params, current, game)
    assert_close(after, by_oracle(current, game, params), tol=1e-12)
    # the tie pulls the two toward each other: the weaker of them gains more
    assert after["bob"][0] - 22.5 > after["ada"][0] - 28.0 > 0
    assert after["cy"][0] < 25.0


@MODELS
def test_five_seats_with_ties_a_seat_without_account_and_a_withdrawn_seat(
    params: Parameters,
) -> None:
    """Six seats: one held by no account (left out), one withdrawn (last,
    alone in its team), two sharing the second place on points broken by
    nothing (R7.3: same stages, same recipes), two apart only by stages."""
    accounts = ["ada", None, "bob", "cy", "dee", "eve"]
    keys = [(40, 3, 2), (55, 9, 9), (31, 2, 5), (31, 2, 5), (28, 4, 1), (45, 6, 3)]
    game = rated_game("g", 77, accounts, keys, withdrawn=[5])
    assert game is not None
    assert [(s.seat, s.account, s.place, s.withdrawn) for s in game.seats] == [
        (0, "ada", 1, False),
        (2, "bob", 2, False),
        (3, "cy", 2, False),
        (4, "dee", 4, False),
        (5, "eve", 5, True),
    ]
    assert game.teams() == [["ada", "0/6"], ["bob", "2/6"], ["cy", "3/6"], ["dee", "4/6"], ["eve"]]
    current = {
        "ada": (26.0, 3.0),
        "bob": (31.0, 2.5),
        "eve": (35.0, 1.5),
        "2/6": (-0.4, 1.0),
        "5/6": (0.9, 0.8),
    }
    after = rate_game(params, current, game)
    assert_close(after, by_oracle(current, game, params), tol=1e-12)
    assert "5/6" not in after  # the withdrawn seat teaches nothing of its seat
    assert after["eve"][0] < 35.0  # withdrawing is a loss


def test_what_is_rated() -> None:
    keys = [(10, 0, 0), (20, 0, 0), (30, 0, 0)]
    assert rated_game("g", 1, ["ada", None, None], keys, []) is None  # one account
    assert rated_game("g", 1, ["ada", None, "ada"], keys, []) is None  # one account, twice
    twice = rated_game("g", 1, ["ada", "bob", "ada"], keys, [])
    assert twice is not None and [s.seat for s in twice.seats] == [0, 1]  # its first seat
    assert rated_game("g", 1, ["ada", "bob", None], keys, [0, 1]) is None  # both withdrew
    forfeit = rated_game("g", 1, ["ada", "bob", None], keys, [1])
    assert forfeit is not None and [s.place for s in forfeit.seats] == [1, 2]
    # the places are among the rated seats: the seat without an account
    # scored most, and the others keep their order (R7.3)
    among = rated_game("g", 1, [None, "ada", "bob"], [(99, 0, 0), (5, 1, 0), (5, 0, 3)], [])
    assert among is not None and [s.place for s in among.seats] == [1, 2]


def test_parameters_the_record_and_the_number_shown() -> None:
    assert Parameters.from_doc(PARAMETERS.to_doc()) == PARAMETERS
    # a record made before issue 35 names no seat_scale: its seats were on the game's scale
    old = {k: v for k, v in BEFORE_ISSUE_35.to_doc().items() if k != "seat_scale"}
    assert Parameters.from_doc(old) == BEFORE_ISSUE_35
    with pytest.raises(ValueError):
        Parameters.from_doc({**PARAMETERS.to_doc(), "extra": 1.0})
    kept = record()
    assert kept["library"] == "openskill" and kept["model"] == "PlackettLuce"
    assert kept["version"].count(".") == 2 and kept["parameters"]["beta"] == 25 / 6
    assert shown(25.0, 25 / 3) == 0  # a new account
    assert shown(30.0, 2.0) == 40 * 24 and shown(20.0, 8.0) == -160
    assert seat_id(0, 4) == "0/4"
    # at a table of equals, a seat with more μ wins more; no effect: a fair share
    assert equal_table_shares(PARAMETERS, [(0.0, 0.0)] * 4) == pytest.approx([0.25] * 4)
    shares = equal_table_shares(PARAMETERS, [(1.0, 0.5), (0.0, 0.5), (-1.0, 0.5)])
    assert shares[0] > 1 / 3 > shares[2] and sum(shares) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [3, 11, 19])
def test_a_sitting_ranks_a_whole_game_as_the_engine_does(seed: int) -> None:
    """The RankTable kept from the open events gives the engine's own R7.3
    keys at the end of a whole game, seats moved before the start included."""
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    hashes = [f"{seed}{n}".ljust(64, "0") for n in range(5)]
    game = app.create_game(variant=None, secret=seed.to_bytes(32, "big"))
    for n, digest in enumerate(hashes):
        app.join(game, f"P{n}", caller=Caller(digest))
    app.remove_seat(game, 1)
    app.start(game)
    seated = [hashes[0], *hashes[2:]]
    choose = BOTS["greedy"](random.Random(seed))
    while (state := app.state(game)).status == "running":
        app.play(game, choose(state, state.turn), caller=Caller(seated[state.turn]))
    ledger = Ledger()
    accounts = {digest: f"account-{n}" for n, digest in enumerate(hashes)}
    for digest, account in accounts.items():
        ledger.feed("AccountOpened", account, {"holder_hash": digest}, 0)
    sitting = None
    for n in app.recorder.select_notifications(0, 10_000):
        event = app.mapper.to_domain_event(n)
        kind = type(event).__name__
        if kind == "GameEnded":
            sitting = Sitting.from_json(ledger.sittings[str(game)].to_json())  # a stored one
        ledger.feed(kind, str(event.originator_id), vars(event), n.id)
    assert sitting is not None and sitting.table is not None
    state = app.state(game)
    sitting.table.scores = list(state.scores)
    assert rank_keys(sitting.table) == rank_keys(state)
    (rated,) = ledger.games
    assert all(ledger.played[s["account"]] == 1 for s in rated["seats"])
    assert [s["account"] for s in rated["seats"]] == [accounts[h] for h in seated]
    assert [s["place"] for s in rated["seats"]] == places(rank_keys(state))
    assert not differences(
        {"games": ledger.games, "accounts": ledger.accounts(), "seats": ledger.seats()}, ledger
    )


def test_differences_name_a_tampered_rating() -> None:
    ledger = Ledger()
    ledger.apply(RatedGame("g1", 5, 2, (RatedSeat(0, "ada", 1), RatedSeat(1, "bob", 2))))
    ledger.apply(RatedGame("g2", 9, 3, (RatedSeat(0, "bob", 1), RatedSeat(2, "cy", 2))))
    kept = {"games": ledger.games, "accounts": ledger.accounts(), "seats": ledger.seats()}
    assert differences(kept, ledger) == []
    nudged = {**kept, "accounts": {**kept["accounts"], "bob": {**kept["accounts"]["bob"]}}}
    nudged["accounts"]["bob"]["mu"] += 1e-6
    (found,) = differences(nudged, ledger)
    assert found.startswith("account bob: recorded μ")
    within = {
        **kept,
        "seats": {k: {**v, "sigma": v["sigma"] + 1e-10} for k, v in kept["seats"].items()},
    }
    assert differences(within, ledger) == []
    reordered = {**kept, "games": [kept["games"][1], kept["games"][0]]}
    assert differences(reordered, ledger)[0].startswith("rated game 1 (g1)")
