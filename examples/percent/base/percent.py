def percent(part, whole):
    """part as a percentage of whole, to one decimal place."""
    raise NotImplementedError
