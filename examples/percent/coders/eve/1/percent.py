from decimal import Decimal, ROUND_HALF_UP


def percent(part, whole):
    """part as a percentage of whole, to one decimal place, halves away from zero."""
    if whole == 0:
        return 0.0
    value = Decimal(part) * 100 / Decimal(whole)
    return float(value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
