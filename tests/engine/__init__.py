"""Tests of demine/engine/."""
