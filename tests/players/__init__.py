"""Tests of demine/players/."""
