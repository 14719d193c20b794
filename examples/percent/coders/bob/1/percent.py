def percent(part, whole):
    """part as a percentage of whole, to one decimal place."""
    return round(part / whole * 100, 1) if whole else 0.0
