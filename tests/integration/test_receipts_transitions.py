"""Key transitions in the service: ``opus receipts rotate`` signs one with
both keys into the file beside the key, the service serves the chain at
the well-known path, and a key retired with no transition from it (a key
changed in silence) keeps the service from starting."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from api.cli import main
from domain.transparency.note import Signer
from domain.transparency.transitions import follow_transitions
from tests.apps import embedded_app


@pytest.fixture
def keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Signer]:
    path = tmp_path / "receipts.key"
    old = Signer.generate("opus.test")
    path.write_text(old.to_text())
    monkeypatch.setenv("OPUS_RECEIPTS_KEY_FILE", str(path))
    monkeypatch.setenv("OPUS_RECEIPTS_NAME", "opus.test")
    return path, old


def _rotate(old: Path, new: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["receipts", "rotate", "--old", str(old), "--new", str(new)])
    return result.exit_code, result.output


def test_a_rotation_is_served_and_followed_from_the_first_key(
    tmp_path: Path, keys: tuple[Path, Signer], monkeypatch: pytest.MonkeyPatch
) -> None:
    first_file, first = keys
    second, third = Signer.generate("opus.test"), Signer.generate("opus.test.v3")
    second_file, third_file = tmp_path / "second.key", tmp_path / "third.key"
    second_file.write_text(second.to_text())
    third_file.write_text(third.to_text())
    assert _rotate(first_file, second_file)[0] == 0
    # the next rotation is from the key signing now, not again from the first
    code, output = _rotate(first_file, third_file)
    assert code == 1 and "not to the old key" in output and "Traceback" not in output
    assert _rotate(second_file, third_file)[0] == 0
    monkeypatch.setenv("OPUS_RECEIPTS_KEY_FILE", str(third_file))
    app = embedded_app(tmp_path, run_projections=False)
    try:
        answer = app.test_client().get("/.well-known/opus-receipts").get_json()
    finally:
        app.extensions["opus"].close()
    assert answer["vkey"] == third.vkey()
    chain = follow_transitions(first.verifier, answer["key_transitions"])
    assert [k.vkey() for k in chain] == [first.vkey(), second.vkey(), third.vkey()]
    retired = [k["vkey"] for k in answer["retired"]]
    assert retired == [first.vkey(), second.vkey()]


def test_a_key_retired_without_a_transition_keeps_the_service_from_starting(
    tmp_path: Path, keys: tuple[Path, Signer], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, old = keys
    new_file = tmp_path / "new.key"
    new_file.write_text(Signer.generate("opus.test").to_text())
    retired = tmp_path / "retired"
    retired.write_text(f"{old.vkey()} 2026-12-01T00:00:00+00:00\n")
    monkeypatch.setenv("OPUS_RECEIPTS_KEY_FILE", str(new_file))
    monkeypatch.setenv("OPUS_RECEIPTS_RETIRED_KEYS", str(retired))
    with pytest.raises(ValueError, match="has no key transition to its successor"):
        embedded_app(tmp_path, run_projections=False)


def test_a_key_the_transitions_do_not_lead_to_keeps_the_service_from_starting(
    tmp_path: Path, keys: tuple[Path, Signer], monkeypatch: pytest.MonkeyPatch
) -> None:
    old_file, _ = keys
    new_file, other_file = tmp_path / "new.key", tmp_path / "other.key"
    new_file.write_text(Signer.generate("opus.test").to_text())
    other_file.write_text(Signer.generate("opus.test").to_text())
    assert _rotate(old_file, new_file)[0] == 0
    monkeypatch.setenv("OPUS_RECEIPTS_KEY_FILE", str(other_file))
    with pytest.raises(ValueError, match="is not the one the last key transition names"):
        embedded_app(tmp_path, run_projections=False)


def test_rotate_names_an_unreadable_key(tmp_path: Path, keys: tuple[Path, Signer]) -> None:
    old_file, _ = keys
    bad = tmp_path / "bad.key"
    bad.write_text("not a key\n")
    code, output = _rotate(old_file, bad)
    assert code == 1 and "the new key" in output and "is not a signing key" in output
    code, output = _rotate(old_file, tmp_path / "missing.key")
    assert code == 1 and "could not be read" in output


def test_a_key_replaced_in_the_key_file_without_a_transition_is_refused(
    tmp_path: Path, keys: tuple[Path, Signer]
) -> None:
    key_file, old = keys
    embedded_app(tmp_path, run_projections=False).extensions["opus"].close()  # it signed
    old_file = tmp_path / "old.key"
    old_file.write_text(old.to_text())
    new = Signer.generate("opus.test")
    key_file.write_text(new.to_text())  # the same path, another key: no retired key, no note
    with pytest.raises(ValueError, match="is not the key that signed before"):
        embedded_app(tmp_path, run_projections=False)
    assert _rotate(old_file, key_file)[0] == 0  # the transition, signed by both
    app = embedded_app(tmp_path, run_projections=False)
    try:
        assert app.test_client().get("/.well-known/opus-receipts").json["vkey"] == new.vkey()
    finally:
        app.extensions["opus"].close()
