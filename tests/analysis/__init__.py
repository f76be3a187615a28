"""Tests of demine/analysis/."""
