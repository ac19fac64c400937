-- Tournaments: match points (T5.2, after corrections T7.1: a game's latest
-- result counts) by table size and seat; a fair table gives each seat 6.
WITH latest AS (
  SELECT game_id, MAX(version) AS version FROM result GROUP BY game_id
)
SELECT
  r.players,
  r.seat,
  COUNT(*) AS results,
  SUM(r.match_points) / COUNT(*) AS mean_match_points,
  SUM(CASE WHEN r.place = 1 THEN 1 ELSE 0 END) AS first_places
FROM result r
JOIN latest l ON l.game_id = r.game_id AND l.version = r.version
GROUP BY r.players, r.seat
ORDER BY r.players, r.seat
