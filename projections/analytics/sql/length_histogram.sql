-- The distribution of game lengths: games by player count and by turns, in
-- bins of 10 turns (turns_from … turns_from + 9).
SELECT
  players,
  CAST(FLOOR(turns / 10) AS INT) * 10 AS turns_from,
  COUNT(*) AS games
FROM game
GROUP BY players, CAST(FLOOR(turns / 10) AS INT) * 10
ORDER BY players, turns_from
