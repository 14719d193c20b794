def percent(part, whole):
    """part as a percentage of whole, to one decimal place."""
    try:
        value = 100.0 * part / whole
    except ZeroDivisionError:
        return 0.0
    return round(value, 1)
