"""The pages' words by area, each module's ``WORDS`` (key: (English, Russian)),
merged into ``api.web.i18n.STRINGS``; a key said twice is an error."""

from __future__ import annotations

import importlib
import pkgutil


def all_words() -> dict[str, tuple[str, str]]:
    merged: dict[str, tuple[str, str]] = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        words: dict[str, tuple[str, str]] = importlib.import_module(f"{__name__}.{module}").WORDS
        for key, pair in words.items():
            if key in merged:
                raise ValueError(f"the words {key!r} are said twice (api/web/words/{module}.py)")
            merged[key] = pair
    return merged
