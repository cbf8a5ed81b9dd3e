"""Read each game's final state out of a log without decoding the sample's event stream.

A sample's events (every prompt of every call) are most of its bytes: 20 triadic games with
deception analysis decode to about 1 GB of JSON, where the store holding the game is well under 1%.
In an ``.eval`` log the store precedes the events, so walking the sample's top-level keys and
stopping at ``store`` skips almost all of the decoding. Other log formats fall back to Inspect's
own reader.
"""

from __future__ import annotations

import codecs
import json
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import zstandard
from inspect_ai.log import read_eval_log

_ZSTD = 93
_FIRST_CHUNK = 1 << 20
_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


def member_chunks(handle: Any, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """A member's decompressed bytes, a chunk at a time, so a reader can stop early.

    ``handle`` is the ``.eval`` file opened for binary reading and ``info`` the member's entry in it.
    Python's ``zipfile`` (before 3.14) cannot read a zstd member, which Inspect may write; this reads all three kinds.
    """
    handle.seek(info.header_offset)
    header = handle.read(30)
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    handle.seek(info.header_offset + 30 + name_len + extra_len)
    raw = handle.read(info.compress_size)
    if info.compress_type == zipfile.ZIP_STORED:
        yield raw
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        yield zlib.decompress(raw, -15)
    elif info.compress_type == _ZSTD:
        reader = zstandard.ZstdDecompressor().stream_reader(raw)
        size = _FIRST_CHUNK
        while chunk := reader.read(size):
            yield chunk
            size *= 2
    else:
        raise ValueError(f"{info.filename}: unsupported zip compression {info.compress_type}")


def _store_of(chunks: Iterator[bytes]) -> dict[str, Any]:
    """Decode chunks until the top-level ``store`` value is complete (a truncated value raises)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    text = ""
    for chunk in chunks:
        text += decoder.decode(chunk)
        try:
            return top_level_value(text, "store")
        except KeyError:
            return {}
        except (ValueError, IndexError):
            continue  # cut off mid-value: read on
    return top_level_value(text + decoder.decode(b"", final=True), "store")


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    return i


def top_level_value(text: str, key: str) -> Any:
    """The value of ``key`` in the JSON object ``text``, decoding only the values before it."""
    i = _skip(text, 0)
    if text[i:i + 1] != "{":
        raise ValueError("not a JSON object")
    i += 1
    while True:
        i = _skip(text, i)
        if text[i] == "}":
            raise KeyError(key)
        name, i = _DECODER.raw_decode(text, i)
        i = _skip(text, i)
        if text[i] != ":":
            raise ValueError(f"expected ':' after key {name!r}")
        value, i = _DECODER.raw_decode(text, _skip(text, i + 1))
        if name == key:
            return value
        i = _skip(text, i)
        if text[i] == ",":
            i += 1


def sample_stores(log: str | Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Each sample's store, keyed by (sample id as text, epoch)."""
    path = Path(log)
    if path.suffix != ".eval":
        full = read_eval_log(str(path))
        return {(str(s.id), s.epoch): dict(s.store) for s in full.samples or []}
    stores: dict[tuple[str, int], dict[str, Any]] = {}
    with zipfile.ZipFile(path) as archive, path.open("rb") as handle:
        for info in archive.infolist():
            name = info.filename
            if not (name.startswith("samples/") and name.endswith(".json")):
                continue
            sample_id, _, epoch = name[len("samples/"):-len(".json")].rpartition("_epoch_")
            stores[(sample_id, int(epoch))] = _store_of(member_chunks(handle, info))
    return stores
