"""Game review: every decision of a finished game marked from what the player could see, with
the chance to win that each decision kept or lost (exact where few enough layouts remain for
the endgame search, the engine's estimate otherwise, and marked which)."""

from demine.review.core import MARKS, Decision, Review, ReviewSettings, review_game

__all__ = ["MARKS", "Decision", "Review", "ReviewSettings", "review_game"]
