"""mathloop.outputs: a named output is written whole or not at all, and a refusal names the path and the reason."""

from __future__ import annotations

import os

import pytest

from mathloop.outputs import OutputError, building_dir, check_folder, replacing, write_text


def test_a_written_file_has_the_usual_mode_and_no_temporary_is_left(tmp_path):
    write_text(tmp_path / "out.json", "{}\n")
    assert (tmp_path / "out.json").read_text() == "{}\n"
    assert os.listdir(tmp_path) == ["out.json"]
    umask = os.umask(0o022)
    os.umask(umask)
    assert (tmp_path / "out.json").stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_failure_while_writing_leaves_the_old_file_and_no_temporary(tmp_path):
    (tmp_path / "out.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with replacing(tmp_path / "out.txt") as tmp:
            tmp.write_text("half")
            raise RuntimeError("the drawing failed")
    assert (tmp_path / "out.txt").read_text() == "old"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_a_missing_folder_is_refused_by_name(tmp_path):
    with pytest.raises(OutputError) as e:
        write_text(tmp_path / "nowhere" / "out.txt", "x")
    assert str(e.value) == f"{tmp_path / 'nowhere' / 'out.txt'}: directory {tmp_path / 'nowhere'} does not exist"
    assert not (tmp_path / "nowhere").exists()


def test_a_folder_that_is_a_file_and_a_name_that_is_a_directory_are_refused(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(OutputError, match="is not a directory"):
        check_folder(tmp_path / "f" / "out.txt")
    (tmp_path / "d").mkdir()
    with pytest.raises(OutputError, match="is a directory"):
        write_text(tmp_path / "d", "x")


def test_a_directory_is_renamed_into_place_only_when_complete(tmp_path):
    out = tmp_path / "export"
    with pytest.raises(ValueError):
        with building_dir(out) as tmp:
            (tmp / "a.txt").write_text("a")
            raise ValueError("a commit did not render")
    assert os.listdir(tmp_path) == []
    with building_dir(out) as tmp:
        (tmp / "a.txt").write_text("a")
    assert os.listdir(out) == ["a.txt"] and os.listdir(tmp_path) == ["export"]


def test_an_occupied_directory_is_refused_unless_it_may_be_replaced(tmp_path):
    out = tmp_path / "export"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(OutputError, match="not an empty directory"):
        with building_dir(out) as tmp:
            (tmp / "new.txt").write_text("new")
    assert os.listdir(out) == ["keep.txt"]
    with pytest.raises(KeyError):  # a failed replacement keeps the previous output whole
        with building_dir(out, may_replace=lambda p: True) as tmp:
            (tmp / "new.txt").write_text("new")
            raise KeyError("boom")
    assert os.listdir(out) == ["keep.txt"]
    with building_dir(out, may_replace=lambda p: (p / "keep.txt").exists()) as tmp:
        (tmp / "new.txt").write_text("new")
    assert os.listdir(out) == ["new.txt"] and os.listdir(tmp_path) == ["export"]


def test_atomic_write_holds_the_whole_new_file_with_the_asked_mode(tmp_path):
    from mathloop.outputs import atomic_write

    (tmp_path / "cache.json").write_text("old")
    atomic_write(tmp_path / "cache.json", '{"new": true}', mode=0o640)
    assert (tmp_path / "cache.json").read_text() == '{"new": true}'
    assert (tmp_path / "cache.json").stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["cache.json"]


def test_atomic_file_leaves_nothing_when_the_write_or_the_rename_fails(tmp_path, monkeypatch):
    from mathloop.outputs import atomic_file

    (tmp_path / "cache.json").write_text("old")
    with pytest.raises(OSError, match="No space left"):
        with atomic_file(tmp_path / "cache.json") as tmp:
            tmp.write_text("half")
            raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError(5, "Input/output error")))
    with pytest.raises(OSError, match="Input/output"):
        with atomic_file(tmp_path / "cache.json") as tmp:
            tmp.write_text("whole")
    assert (tmp_path / "cache.json").read_text() == "old"
    assert os.listdir(tmp_path) == ["cache.json"]


def test_atomic_dir_replaces_an_incomplete_build_only_when_its_own_completes(tmp_path):
    from mathloop.outputs import atomic_dir

    out = tmp_path / "cache"
    out.mkdir()
    (out / "half.olean").write_text("from a build that was killed")
    with pytest.raises(RuntimeError):
        with atomic_dir(out) as tmp:
            (tmp / "a.olean").write_text("a")
            raise RuntimeError("the compiler failed")
    assert os.listdir(tmp_path) == ["cache"] and os.listdir(out) == ["half.olean"]
    with atomic_dir(out, mode=0o700) as tmp:
        (tmp / "a.olean").write_text("a")
    assert os.listdir(tmp_path) == ["cache"] and os.listdir(out) == ["a.olean"]
    assert out.stat().st_mode & 0o777 == 0o700
