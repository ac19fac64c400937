-- The steal graph: for each player count, who (by seat) takes cards from
-- whose table or Sequence; the points those actions gave the takers, the
-- half-shares the victims got back (R4.4, R4.6, S15) and the difference.
SELECT
  g.players,
  s.taker,
  s.victim,
  COUNT(*) AS cards,
  SUM(CASE WHEN s.first_card THEN 1 ELSE 0 END) AS actions,
  SUM(CASE WHEN s.zone = 'table' THEN 1 ELSE 0 END) AS from_tables,
  SUM(CASE WHEN s.zone = 'sequence' THEN 1 ELSE 0 END) AS from_sequences,
  SUM(s.taker_points) AS taker_points,
  SUM(s.victim_points) AS victim_points,
  SUM(s.taker_points) - SUM(s.victim_points) AS net_points
FROM steal s
JOIN game g ON g.game_id = s.game_id
GROUP BY g.players, s.taker, s.victim
ORDER BY g.players, s.taker, s.victim
