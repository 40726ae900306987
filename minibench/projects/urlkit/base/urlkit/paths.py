"""Path algorithms from RFC 3986: dot-segment removal and reference merging."""


def remove_dot_segments(path):
    """Remove ``.`` and ``..`` segments (RFC 3986 section 5.2.4).

    >>> remove_dot_segments("/a/b/c/./../../g")
    '/a/g'
    """
    if not path:
        return path
    output = []
    segments = path.split("/")
    for index, segment in enumerate(segments):
        is_last = index == len(segments) - 1
        if segment == ".":
            if is_last:
                output.append("")
            continue
        if segment == "..":
            if len(output) > 1 or (output and output[0] != ""):
                output.pop()
            if is_last:
                output.append("")
            continue
        output.append(segment)
    result = "/".join(output)
    if path.startswith("/") and not result.startswith("/"):
        result = "/" + result
    return result


def merge_paths(base_path, ref_path, base_has_authority):
    """Merge a relative reference path with the base path (RFC 3986 section 5.2.3)."""
    if base_has_authority and not base_path:
        return "/" + ref_path
    head, sep, _ = base_path.rpartition("/")
    if not sep:
        return ref_path
    return head + "/" + ref_path


def split_segments(path):
    """Return the non-empty segments of ``path``."""
    return [segment for segment in path.split("/") if segment]
