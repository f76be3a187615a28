"""Tests of demine/render/."""
