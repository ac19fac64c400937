"""Words of the names the pages refuse (api/web/look_alikes.py, domain/names.py):
key: (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    "names_look_alike_account": (
        "The name “{name}” looks like “{other}”, the name of another account: {chars} in it "
        "can be taken for other characters. Choose a name that cannot be taken for it.",
        "Имя «{name}» выглядит как «{other}» — имя другой учётной записи: {chars} в нём "
        "можно принять за другие символы. Выберите имя, которое с ним не спутать.",
    ),
    "names_look_alike": (
        "“{name}” looks like “{other}”, a name already taken here: {chars} in it can be "
        "taken for other characters. Choose a name that cannot be taken for it.",
        "«{name}» выглядит как «{other}» — это имя здесь уже занято: {chars} в нём можно "
        "принять за другие символы. Выберите имя, которое с ним не спутать.",
    ),
    "names_invisible": (
        "A name may not hold {char}: it shows as nothing or as blank space, so the name "
        "could pass for another.",
        "В имени нельзя использовать {char}: этот символ не виден или выглядит как пробел, "
        "и имя можно принять за другое.",
    ),
    "names_bot_name": (
        "“{name}” looks like the name of one of the service's bots: only the bots take such names.",
        "«{name}» выглядит как имя одного из ботов сервиса: такие имена только у ботов.",
    ),
    "names_bot_contribution": (
        "A seed contribution starting “bot:” marks a bot's seat: only the service's bots give one.",
        "Вклад в зерно, начинающийся с «bot:», отмечает место бота: такой вклад дают только "
        "боты сервиса.",
    ),
}
