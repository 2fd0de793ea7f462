"""Planning a turn: the context the model sees, its tokens, URLs, agents and handoffs,
pipelines, and asking the model until it gives a valid plan."""
