"""HTTP dates (RFC 9110 section 5.6.7)."""
import datetime as _dt

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def format_http_date(moment):
    """Format a datetime (naive values are taken as UTC) or a POSIX timestamp as IMF-fixdate.

    >>> format_http_date(784111777)
    'Sun, 06 Nov 1994 08:49:37 GMT'
    """
    if isinstance(moment, (int, float)):
        moment = _dt.datetime.fromtimestamp(moment, _dt.timezone.utc)
    elif moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    moment = moment.astimezone(_dt.timezone.utc)
    return "%s, %02d %s %04d %02d:%02d:%02d GMT" % (
        _WEEKDAYS[moment.weekday()],
        moment.day,
        _MONTHS[moment.month - 1],
        moment.year,
        moment.hour,
        moment.minute,
        moment.second,
    )
