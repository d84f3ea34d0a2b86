"""What the controllers create from the objects we render, derived as they derive it (pure functions)."""
