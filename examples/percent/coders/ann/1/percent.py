def percent(part, whole):
    """part as a percentage of whole, to one decimal place."""
    if whole == 0:
        return 0.0
    return round(100 * part / whole, 1)
