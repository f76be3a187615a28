"""Tests of demine/review/."""
