"""Words of the names the pages refuse (api/web/look_alikes.py, domain/names.py):
key: (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    "names_look_alike": (
        "The name “{name}” looks like “{other}”, the name of another account (letters of "
        "other alphabets that look the same, such as a Cyrillic “А”, count as the same "
        "letter): choose a name that cannot be taken for it.",
        "Имя «{name}» выглядит как «{other}» — имя другой учётной записи (одинаковые на вид "
        "буквы разных алфавитов, например латинская «A» и русская «А», считаются одной "
        "буквой): выберите имя, которое с ним не спутать.",
    ),
}
