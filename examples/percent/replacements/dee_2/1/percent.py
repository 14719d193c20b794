def percent(part, whole):
    """part as a percentage of whole, to one decimal place."""
    if whole == 0:
        return 0.0
    return round(part * 100 / whole, 1)
