"""How the tournaments view keeps a tournament's events, on real view stores
(SQLite, then Redis): each commit appends its own events to ``<t>:events``
and writes nothing of the events before them; a view that no longer holds
a tournament's folded state (another process, a full cache) folds it again
from the list; a view written before the list (the events in a ``<t>:model``
document) moves them into it on the tournament's next event. Each ends with
the bytes of a rebuild."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

from domain.application import Opus
from domain.simulation import enter_tournament, play_on
from projections import view as view_module
from projections.ports import Changes, ListChange, ViewStore, namespace
from projections.rebuild import rebuild, replay
from projections.registry import select
from projections.tournaments import TournamentView
from projections.view import View
from tests.conftest import ViewsUnderTest

NAME = TournamentView.name


@pytest.fixture
def app(events_env: dict[str, str]) -> Iterator[Opus]:
    application = Opus(env=events_env)
    yield application
    application.close()


def last_position(app: Opus) -> int:
    return app.recorder.max_notification_id() or 0


def played(app: Opus) -> tuple[str, int]:
    """A tournament registered, penalised and played to its finish; its key
    and the position its registrations end at."""
    run = enter_tournament(app, players=7, rounds=2, seed=31)
    registered = last_position(app)
    app.tournaments.penalise(run.tournament, 3, Fraction(1, 2), "late", "arbiter")
    play_on(app, run, "random", drop_rate=0.2)
    return str(run.tournament), registered


def rebuilt(views: ViewsUnderTest, app: Opus, position: int) -> dict[str, Any]:
    generation = rebuild(views.store, app, select([NAME]), as_of=position).generation
    dump: dict[str, Any] = views.store.dump(namespace(NAME, generation))
    return dump


def project(store: ViewStore, app: Opus, generation: str, after: int, end: int, size: int) -> None:
    """From ``after`` to ``end``, ``size`` events a commit, through a view
    that holds nothing yet (as a process just started)."""
    replay(app, [TournamentView(View(store, NAME, generation))], after, end, size)


class Recording:
    """A view store that keeps every batch committed through it."""

    def __init__(self, store: ViewStore) -> None:
        self.store = store
        self.commits: list[Changes] = []

    def commit(self, ns: str, changes: Changes, *args: Any, **kwargs: Any) -> None:
        self.commits.append(changes)
        self.store.commit(ns, changes, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def test_each_commit_appends_its_events_and_writes_none_before_them(
    app: Opus, views: ViewsUnderTest
) -> None:
    key, registered = played(app)
    recording = Recording(views.store)
    view = View(recording, NAME, "one-by-one", fresh=True)
    replay(app, [TournamentView(view)], 0, registered, batch_size=1)
    assert len(recording.commits) == registered  # the creation, then 7 registrations
    for changes in recording.commits:
        assert set(changes.docs) == {key, f"{key}:standings"}
        assert list(changes.lists) == [f"{key}:events"]
        change = changes.lists[f"{key}:events"]
        assert not change.cleared and not change.replaced and len(change.appended) == 1
    events = [json.loads(item) for item in views.store.items(view.ns, f"{key}:events")]
    assert [e["type"] for e in events] == ["TournamentCreated"] + ["PlayerRegistered"] * 7
    assert [e["name"] for e in events[1:]] == [f"Bot {n}" for n in range(1, 8)]
    doc = json.loads(views.store.get(view.ns, key) or "null")
    assert doc["version"] == 8 and doc["position"] == registered and len(doc["players"]) == 7


def test_a_view_that_holds_no_state_folds_it_again_from_the_list(
    app: Opus, views: ViewsUnderTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    key, registered = played(app)
    end = last_position(app)
    expected = rebuilt(views, app, end)
    assert f"list {key}:events" in expected and f"doc {key}:model" not in expected
    # another process takes over from each of these positions
    middle = (registered + end) // 2
    for cut in (registered, middle, end - 1):
        project(views.store, app, f"restart{cut}", 0, cut, 5)
        project(views.store, app, f"restart{cut}", cut, end, 3)
        assert views.store.dump(namespace(NAME, f"restart{cut}")) == expected, cut
    # a rebuild whose cache is emptied after every commit
    monkeypatch.setattr(view_module, "MAX_CACHED_DOCS", 0)
    fresh = TournamentView(View(views.store, NAME, "evicted", fresh=True))
    replay(app, [fresh], 0, end, batch_size=4)
    assert views.store.dump(namespace(NAME, "evicted")) == expected


def test_a_view_written_before_the_list_moves_its_events_into_it_and_goes_on(
    app: Opus, views: ViewsUnderTest
) -> None:
    key, registered = played(app)
    end = last_position(app)
    middle = (registered + end) // 2
    # the view at ``middle`` as the former code wrote it: the events in a document
    then = rebuilt(views, app, middle)
    events = [json.loads(item) for item in then.pop(f"list {key}:events")]
    doc = json.loads(then[f"doc {key}"])
    former = {"tournament": key, "events": events, "version": doc["version"]}
    former["position"] = doc["position"]
    docs = {k.removeprefix("doc "): v for k, v in then.items() if k.startswith("doc ")}
    docs[f"{key}:model"] = json.dumps(former)
    ns = namespace(NAME, "former")
    views.store.commit(ns, Changes(docs=docs), "Opus", None, middle)
    assert views.store.items(ns, f"{key}:events") == []

    project(views.store, app, "former", middle, end, 2)
    assert views.store.dump(ns) == rebuilt(views, app, end)
    assert views.store.get(ns, f"{key}:model") is None


def test_a_batchs_own_appends_are_read_back_with_the_stored_items(
    views: ViewsUnderTest,
) -> None:
    """``Transaction.items``: what the store holds, with the open batch's
    changes applied (the list a projection folds again mid-batch)."""
    store = views.store
    store.commit(
        namespace(NAME, "items"), Changes(lists={"l": ListChange(["1", "2"])}), "Opus", None, 1
    )
    view = View(store, NAME, "items")
    with view.batch():
        tx = view.batch_tx
        assert tx is not None
        assert tx.items("l") == [1, 2] and tx.items("none") == []
        tx.append("l", 3)
        tx.replace("l", 0, 10)
        assert tx.items("l") == [10, 2, 3]
        tx.rewrite("l", [7])
        tx.append("l", 8)
        assert tx.items("l") == [7, 8]
        view.batch_position = 2
    assert [json.loads(item) for item in store.items(view.ns, "l")] == [7, 8]
