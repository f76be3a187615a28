"""Tests of demine/cli/."""
