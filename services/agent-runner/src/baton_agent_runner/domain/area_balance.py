"""Work-life balance, read as health, not work: "I need better work-life balance" is about
rest and not burning out, what health holds here (sleep, energy, stress), not a priority of
the job; it was kept as the work fact. The words still name work alone without "balance"
("my work life is busy")."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

WORK_LIFE_BALANCE = (
    r"work[\s-]*life[\s-]+balance\b",
    r"баланс(?:а|е|ом)?\s+(?:между\s+)?работ(?:ой|ы|а)\s+и\s+(?:личной\s+)?жизн(?:ью|и|ь)\b",
)
"""Health's patterns of a balance of work and life."""

NO_BALANCE_AFTER = r"(?!(?:[\s-]*life)?[\s-]+balance\b)"
"""After an English work word: not the "work" of "work-life balance"."""

NO_BALANCE_BEFORE = "".join(
    rf"(?<!{lead} )"
    for lead in ("баланс", "баланса", "балансе", "балансом", "баланс между", "баланса между",
                 "балансе между")
)  # fmt: skip
"""Before "работ": not the work of "баланс работы и жизни"."""
