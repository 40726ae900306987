"""HTTP dates (RFC 9110 section 5.6.7)."""
import calendar
import datetime as _dt
import re

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH_NUMBERS = {name: number for number, name in enumerate(_MONTHS, start=1)}

# The three formats a recipient must accept: IMF-fixdate, obsolete RFC 850 and asctime().
_IMF_FIXDATE = re.compile(r"^[A-Z][a-z]{2}, (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$")
_RFC850 = re.compile(r"^[A-Z][a-z]+, (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$")
_ASCTIME = re.compile(r"^[A-Z][a-z]{2} ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$")


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


def parse_http_date(value):
    """Parse an HTTP date in any of the three allowed formats into a POSIX timestamp.

    Returns ``None`` when ``value`` is not a valid HTTP date.

    >>> parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT")
    784111777
    """
    value = value.strip()
    match = _IMF_FIXDATE.match(value)
    if match:
        day, month, year, hour, minute, second = match.groups()
    else:
        match = _RFC850.match(value)
        if match:
            day, month, short_year, hour, minute, second = match.groups()
            # RFC 9110: a two-digit year more than 50 years in the future is in the past century.
            this_year = _dt.datetime.now(_dt.timezone.utc).year
            year = 2000 + int(short_year)
            if year > this_year + 50:
                year -= 100
        else:
            match = _ASCTIME.match(value)
            if not match:
                return None
            month, day, hour, minute, second, year = match.groups()
    month_number = _MONTH_NUMBERS.get(month)
    if month_number is None:
        return None
    try:
        moment = _dt.datetime(int(year), month_number, int(day), int(hour), int(minute), int(second))
    except ValueError:
        return None
    return calendar.timegm(moment.timetuple())
