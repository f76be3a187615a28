"""Tests of demine/web/."""
