"""Potion-Making with the Guild of Alchemists: the rules and the Game aggregate."""
