-- Players: each player's games, wins, mean score and place, and the log
-- positions of their first and last game; a player is the leaderboard's
-- identity (player_id), shown under the name of their latest game.
WITH named AS (
  SELECT
    s.player_id,
    s.name,
    ROW_NUMBER() OVER (PARTITION BY s.player_id ORDER BY g.end_position DESC, s.seat) AS latest
  FROM seat s
  JOIN game g ON g.game_id = s.game_id
)
SELECT
  s.player_id,
  n.name,
  COUNT(*) AS games,
  CAST(SUM(s.win_units) AS DOUBLE) / 60 AS wins,
  CAST(SUM(s.win_units) AS DOUBLE) / 60 / COUNT(*) AS win_share,
  CAST(SUM(s.score) AS DOUBLE) / COUNT(*) AS mean_score,
  CAST(SUM(s.place) AS DOUBLE) / COUNT(*) AS mean_place,
  MIN(g.end_position) AS first_position,
  MAX(g.end_position) AS last_position
FROM seat s
JOIN game g ON g.game_id = s.game_id
JOIN named n ON n.player_id = s.player_id AND n.latest = 1
GROUP BY s.player_id, n.name
ORDER BY games DESC, s.player_id
