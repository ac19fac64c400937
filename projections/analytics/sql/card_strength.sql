-- Card strength (17lands-style): for each recipe, the seats that assembled
-- it at least once against all other seats: win share and sample size; the
-- points it brought those seats (its assemblies and placements, R4.4 and
-- R4.6, per assembling seat); how often a card of it was taken by another
-- player (steals, R5.4 and tables).
WITH owners AS (
  SELECT game_id, player, name, COUNT(*) AS assemblies
  FROM assembly
  GROUP BY game_id, player, name
), brought AS (
  SELECT game_id, player, name, SUM(points) AS points
  FROM award
  WHERE rule IN ('R4.4', 'R4.6')
  GROUP BY game_id, player, name
), assembled AS (
  SELECT
    o.name,
    COUNT(*) AS seats,
    SUM(o.assemblies) AS assemblies,
    SUM(s.win_units) AS units,
    SUM(COALESCE(b.points, 0)) AS points
  FROM owners o
  JOIN seat s ON s.game_id = o.game_id AND s.seat = o.player
  LEFT JOIN brought b ON b.game_id = o.game_id AND b.player = o.player AND b.name = o.name
  GROUP BY o.name
), everyone AS (
  SELECT COUNT(*) AS seats, SUM(win_units) AS units FROM seat
), stolen AS (
  SELECT name, COUNT(*) AS stolen FROM steal GROUP BY name
), kinds AS (
  SELECT name, MIN(kind) AS kind, MIN(points) AS printed_points FROM assembly GROUP BY name
), shares AS (
  SELECT
    a.name,
    k.kind,
    k.printed_points,
    a.assemblies,
    a.seats AS assembled_seats,
    CAST(a.units AS DOUBLE) / 60 / a.seats AS assembled_win_share,
    e.seats - a.seats AS other_seats,
    CAST(e.units - a.units AS DOUBLE) / 60 / NULLIF(e.seats - a.seats, 0) AS other_win_share,
    CAST(a.points AS DOUBLE) / a.seats AS mean_points,
    COALESCE(t.stolen, 0) AS stolen
  FROM assembled a
  CROSS JOIN everyone e
  JOIN kinds k ON k.name = a.name
  LEFT JOIN stolen t ON t.name = a.name
)
SELECT
  name,
  kind,
  printed_points,
  assemblies,
  assembled_seats,
  assembled_win_share,
  other_seats,
  other_win_share,
  assembled_win_share - other_win_share AS win_share_delta,
  mean_points,
  stolen,
  CAST(stolen AS DOUBLE) / assemblies AS stolen_per_assembly
FROM shares
ORDER BY win_share_delta DESC NULLS LAST, name
