-- Do Sequences decide games? Win share of seats by the number of columns
-- they completed (Guild games), for each player count.
SELECT
  s.players,
  s.sequences_completed,
  COUNT(*) AS seats,
  CAST(SUM(s.win_units) AS DOUBLE) / 60 AS wins,
  CAST(SUM(s.win_units) AS DOUBLE) / 60 / COUNT(*) AS win_share,
  CAST(SUM(s.stages) AS DOUBLE) / COUNT(*) AS mean_stages,
  CAST(SUM(s.score) AS DOUBLE) / COUNT(*) AS mean_score
FROM seat s
JOIN game g ON g.game_id = s.game_id
WHERE g.guild
GROUP BY s.players, s.sequences_completed
ORDER BY s.players, s.sequences_completed
