# GDB pretty-printers for zset, the Redis sorted set as a header-only C++17 container.
#
#   (gdb) source /path/to/share/zset/gdb/zset_printers.py
#   (gdb) print board
#   $1 = zset::sorted_set with 3 elements (listpack) = {["bob"] = 950, ["alice"] = 1200, ...}
#
# Printers:
#   zset::sorted_set<...>                  size, encoding and the first elements as
#                                          ["member"] = score, in (score, member) order
#   zset::sorted_set<...>::const_iterator  the element it points at, or end()
#
# `set print zset-elements N` changes how many elements are shown (default 10, 0 = unlimited).
#
# The printers read the container's private layout (see include/zset/detail/listpack.hpp and
# skiplist.hpp) and must match the zset version they are used with. Members that are
# std::string are decoded from a block's byte heap; other member types are read as the object
# array the block stores and printed by gdb. When a layout cannot be decoded (missing debug
# information, unexpected types, a set that is not constructed yet) the printer falls back to
# the size and the encoding.
#
# Requires GDB >= 8.0 built with Python 3.

import re

import gdb
import gdb.printing

_DEFAULT_LIMIT = 10
_LONG_LENGTH = 255  # length byte of a member of 255 bytes or more: a 4-byte length precedes it


class _ElementLimit(gdb.Parameter):
    """How many elements the zset::sorted_set printer shows (0 = unlimited)."""

    set_doc = "Set how many elements the zset::sorted_set printer shows."
    show_doc = "Show how many elements the zset::sorted_set printer shows."

    def __init__(self):
        super(_ElementLimit, self).__init__(
            "print zset-elements", gdb.COMMAND_DATA, gdb.PARAM_UINTEGER)
        self.value = _DEFAULT_LIMIT

    def get_set_string(self):
        return ""

    def get_show_string(self, svalue):
        return "zset::sorted_set printer shows up to %s elements." % svalue


_limit_parameter = None


def _element_limit():
    if _limit_parameter is None:
        return _DEFAULT_LIMIT
    value = _limit_parameter.value
    # PARAM_UINTEGER reports "unlimited" as None (or 0 in old versions of gdb).
    if value is None or value == 0:
        return None
    return int(value)


def _align_up(n, a):
    return (n + a - 1) // a * a


def _alignof(t):
    try:
        return t.alignof
    except AttributeError:  # gdb < 8.2: scalars are aligned to their size on every zset target
        return min(t.sizeof, 16)


def _is_byte_string(t):
    """Whether a member type is std::string (the packed-bytes layout of a block)."""
    name = t.strip_typedefs().name or ""
    return re.match(r"^std::(__\w+::)*basic_string<char[,>]", name) is not None or \
        name == "std::string"


class _Layout(object):
    """Offsets and types of one sorted_set instantiation, taken from its skiplist head."""

    def __init__(self, skiplist):
        head = skiplist["head_"]
        node_type = None
        for field in head.type.strip_typedefs().fields():
            if field.is_base_class:
                node_type = field.type.strip_typedefs()
        if node_type is None:
            raise gdb.GdbError("zset: unexpected skiplist head type")
        self.node_ptr = node_type.pointer()
        self.node_size = node_type.sizeof
        self.link_ptr = head["storage"][0].type.strip_typedefs().pointer()
        self.head_addr = int(head.address)
        block_type = head["data"].type.strip_typedefs()
        self.score_type = block_type.template_argument(0).strip_typedefs()
        self.member_type = block_type.template_argument(1).strip_typedefs()
        self.byte_members = _is_byte_string(self.member_type)
        self.header_size = head["data"]["h_"].type.strip_typedefs().target().sizeof
        self.uchar_ptr = gdb.lookup_type("unsigned char").pointer()
        self.char_ptr = gdb.lookup_type("char").pointer()
        self.u32_ptr = gdb.lookup_type("unsigned int").pointer()
        if self.u32_ptr.target().sizeof != 4:
            raise gdb.GdbError("zset: no 4-byte unsigned int")
        self.scores_offset = _align_up(self.header_size, _alignof(self.score_type))

    def first(self, skiplist):
        return skiplist["head_"]["storage"][0]["next"]

    def next0(self, node):
        """Level-0 successor: the links follow the node header in the same allocation."""
        links = (node.cast(self.uchar_ptr) + self.node_size).cast(self.link_ptr)
        return links.dereference()["next"]


class _Block(object):
    """One block (a run of elements in one allocation); see detail/listpack.hpp."""

    def __init__(self, layout, data):
        self.layout = layout
        h = data["h_"]
        if int(h) == 0:
            self.size = 0
            return
        header = h.dereference()
        self.size = int(header["size"])
        self.capacity = int(header["capacity"])
        self.heap_used = int(header["heap_used"])
        if self.size > self.capacity:
            raise gdb.GdbError("zset: corrupt block header")
        self.base = h.cast(layout.uchar_ptr)
        cap = self.capacity
        self.scores = (self.base + layout.scores_offset).cast(layout.score_type.pointer())
        fingerprints_offset = layout.scores_offset + cap * layout.score_type.sizeof
        if layout.byte_members:
            self.lengths = self.base + fingerprints_offset + cap
            self.heap = self.base + fingerprints_offset + 2 * cap
        else:
            members_offset = _align_up(fingerprints_offset + cap, _alignof(layout.member_type))
            self.members = (self.base + members_offset).cast(layout.member_type.pointer())

    def elements(self):
        """Yields (member, score) for every element, in order."""
        offset = 0
        for i in range(self.size):
            score = self.scores[i]
            if self.layout.byte_members:
                length = int(self.lengths[i])
                start = offset
                if length == _LONG_LENGTH:
                    length = int((self.heap + offset).cast(self.layout.u32_ptr).dereference())
                    start += 4
                    offset += 4
                offset += length
                if offset > self.heap_used:
                    raise gdb.GdbError("zset: corrupt block heap")
                member = (self.heap + start).cast(self.layout.char_ptr).lazy_string(
                    length=length)
                yield member, score
            else:
                yield self.members[i], score

    def element(self, index, offset):
        """The (member, score) of element `index` whose heap record starts at `offset`."""
        score = self.scores[index]
        if not self.layout.byte_members:
            return self.members[index], score
        length = int(self.lengths[index])
        start = offset
        if length == _LONG_LENGTH:
            length = int((self.heap + offset).cast(self.layout.u32_ptr).dereference())
            start += 4
        return (self.heap + start).cast(self.layout.char_ptr).lazy_string(length=length), score


def _walk(layout, skiplist, limit):
    """Yields up to `limit` (member, score) pairs in order (None = all)."""
    produced = 0
    node = layout.first(skiplist)
    nodes_left = int(skiplist["nodes_"])
    while int(node) != layout.head_addr and nodes_left > 0:
        nodes_left -= 1
        for member, score in _Block(layout, node.dereference()["data"]).elements():
            if limit is not None and produced >= limit:
                return
            produced += 1
            yield member, score
        node = layout.next0(node)


class SortedSetPrinter(object):
    """zset::sorted_set<...>: size, encoding and the first elements as ["member"] = score."""

    def __init__(self, val):
        self.val = val
        self.skiplist = val["list_"]
        self.size = int(self.skiplist["size_"])
        self.encoding = "skiplist" if bool(self.val["skiplist_mode_"]) else "listpack"
        try:
            self.layout = _Layout(self.skiplist)
        except (gdb.error, gdb.GdbError, RuntimeError, TypeError, ValueError):
            self.layout = None  # unsupported instantiation: summary only

    def to_string(self):
        noun = "element" if self.size == 1 else "elements"
        text = "zset::sorted_set with %d %s (%s)" % (self.size, noun, self.encoding)
        limit = _element_limit()
        if self.layout is not None and limit is not None and self.size > limit:
            text += ", showing first %d" % limit
        return text

    def display_hint(self):
        return "map"

    def children(self):
        if self.layout is None or self.size == 0:
            return
        try:
            for i, (member, score) in enumerate(_walk(self.layout, self.skiplist,
                                                      _element_limit())):
                yield "[%d]" % (2 * i), member
                yield "[%d]" % (2 * i + 1), score
        except (gdb.error, gdb.GdbError, gdb.MemoryError, RuntimeError):
            return  # an unconstructed or corrupt set: show what could be read


class _IteratorElementPrinter(object):
    """A dereferenceable const_iterator: {member = ..., score = ...}."""

    def __init__(self, member, score):
        self.member = member
        self.score = score

    def to_string(self):
        return "zset iterator"

    def children(self):
        yield "member", self.member
        yield "score", self.score


class _IteratorTextPrinter(object):
    """A const_iterator that points at no element (end(), singular, unreadable)."""

    def __init__(self, text):
        self.text = text

    def to_string(self):
        return self.text


def SortedSetIteratorPrinter(val):
    """zset::sorted_set<...>::const_iterator: the element it points at, or end()."""
    node = val["node_"]
    if int(node) == 0:
        return _IteratorTextPrinter("zset iterator (singular)")
    try:
        data = node.dereference()["data"]
        if int(data["h_"]) == 0:
            # Only the head sentinel has no block: this is end() (or rend().base()).
            return _IteratorTextPrinter("zset iterator (end)")
        block = _Block(_IteratorLayout(data.type.strip_typedefs()), data)
        index = int(val["index_"])
        if index >= block.size:
            return _IteratorTextPrinter("zset iterator (invalid: index %d of %d)"
                                        % (index, block.size))
        member, score = block.element(index, int(val["offset_"]))
        return _IteratorElementPrinter(member, score)
    except (gdb.error, gdb.GdbError, gdb.MemoryError, RuntimeError, TypeError, ValueError):
        return _IteratorTextPrinter("zset iterator (unreadable, node %s, index %d)"
                                    % (node, int(val["index_"])))


class _IteratorLayout(object):
    """The subset of _Layout a single block needs, built from the block type alone."""

    def __init__(self, block_type):
        self.score_type = block_type.template_argument(0).strip_typedefs()
        self.member_type = block_type.template_argument(1).strip_typedefs()
        self.byte_members = _is_byte_string(self.member_type)
        header_size = None
        for field in block_type.fields():
            if field.name == "h_":
                header_size = field.type.strip_typedefs().target().sizeof
        if header_size is None:
            raise gdb.GdbError("zset: unexpected block type")
        self.uchar_ptr = gdb.lookup_type("unsigned char").pointer()
        self.char_ptr = gdb.lookup_type("char").pointer()
        self.u32_ptr = gdb.lookup_type("unsigned int").pointer()
        self.scores_offset = _align_up(header_size, _alignof(self.score_type))


def build_pretty_printer():
    pp = gdb.printing.RegexpCollectionPrettyPrinter("zset")
    # Order matters: the iterator's name also starts with "zset::sorted_set<".
    pp.add_printer("sorted_set::const_iterator", r"^zset::sorted_set<.*>::const_iterator$",
                   SortedSetIteratorPrinter)
    pp.add_printer("sorted_set", r"^zset::sorted_set<.*>$", SortedSetPrinter)
    return pp


def register_zset_printers(objfile=None):
    """Registers the zset printers with `objfile` (None: globally, for every program)."""
    global _limit_parameter
    if _limit_parameter is None:
        try:
            _limit_parameter = _ElementLimit()
        except RuntimeError:
            pass  # already defined by an earlier load of this file
    gdb.printing.register_pretty_printer(objfile, build_pretty_printer(), replace=True)


register_zset_printers(gdb.current_objfile())
