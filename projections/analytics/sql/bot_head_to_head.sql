-- Bots head to head: for every two seats of one game both played by bots,
-- how often the first finished ahead of, behind or level with the second
-- (places, R7.3 / T5.1); score share = (ahead + level / 2) / meetings.
SELECT
  a.bot_kind AS bot,
  b.bot_kind AS opponent,
  COUNT(*) AS meetings,
  SUM(CASE WHEN a.place < b.place THEN 1 ELSE 0 END) AS ahead,
  SUM(CASE WHEN a.place > b.place THEN 1 ELSE 0 END) AS behind,
  SUM(CASE WHEN a.place = b.place THEN 1 ELSE 0 END) AS level,
  CAST(SUM(CASE WHEN a.place < b.place THEN 2 WHEN a.place = b.place THEN 1 ELSE 0 END) AS DOUBLE)
    / (2 * COUNT(*)) AS score_share
FROM seat a
JOIN seat b ON b.game_id = a.game_id AND b.seat <> a.seat
WHERE a.bot_kind IS NOT NULL AND b.bot_kind IS NOT NULL
GROUP BY a.bot_kind, b.bot_kind
ORDER BY bot, opponent
