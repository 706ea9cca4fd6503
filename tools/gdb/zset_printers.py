# GDB pretty-printers for zset, the Redis sorted set as a header-only C++17 container.
#
#   (gdb) source /path/to/share/zset/gdb/zset_printers.py
#   (gdb) print board
#   $1 = zset::sorted_set with 3 elements (listpack) = {["bob"] = 950, ["alice"] = 1200, ...}
#
# Printers:
#   zset::sorted_set<...>                  size, encoding and the first elements as
#                                          ["member"] = score, in (score, member) order
#   zset::sorted_set<...>::const_iterator  the element it points at, or end() (the iterator's
#                                          type is zset::detail::set_iterator<...>)
#
# `set print zset-elements N` changes how many elements are shown (default 10, 0 = unlimited).
#
# The printers read the container's private layout (the set's one member, engine_, holds the
# state: see include/zset/detail/container/set_engine.hpp, block.hpp and skiplist.hpp) and must
# match the zset version they are used with. Members that are
# std::string are decoded from a block's records; other member types are read as the objects
# the block stores and printed by gdb. When a layout cannot be decoded (missing debug
# information, unexpected types, a set that is not constructed yet) the printer falls back to
# the size and the encoding.
#
# Requires GDB >= 8.0 built with Python 3.

import re

import gdb
import gdb.printing

_DEFAULT_LIMIT = 10
_LONG_LENGTH = 255  # length byte of a member of 255 bytes or more: stored out of line


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


def _field_type(struct_type, name):
    for field in struct_type.fields():
        if field.name == name:
            return field.type.strip_typedefs()
    raise gdb.GdbError("zset: no field %s in %s" % (name, struct_type))


class _BlockLayout(object):
    """Types of one block instantiation; see detail/container/block.hpp. One allocation holds

        [header][record area][order: u16 x capacity][fingerprints: u16 x capacity, listpack]

    The order array lists record refs in (score, member) order. std::string members: a record
    at byte offset `ref` of the area is [score][length byte][bytes], or for a member of 255
    bytes or more [score][255][u32 length][char* bytes]. Other members: cell number `ref` is
    [score][member] (the member at least 2 bytes in, aligned).
    """

    def __init__(self, block_type):
        self.score_type = block_type.template_argument(0).strip_typedefs()
        self.member_type = block_type.template_argument(1).strip_typedefs()
        self.byte_members = _is_byte_string(self.member_type)
        self.header_size = _field_type(block_type, "h_").target().sizeof
        score_size = self.score_type.sizeof
        if self.byte_members:
            self.records_offset = self.header_size
            self.unit = 1
        else:
            cell_align = max(_alignof(self.score_type), _alignof(self.member_type))
            self.member_offset = _align_up(max(score_size, 2), _alignof(self.member_type))
            self.unit = _align_up(self.member_offset + self.member_type.sizeof, cell_align)
            self.records_offset = _align_up(self.header_size, cell_align)
        self.uchar_ptr = gdb.lookup_type("unsigned char").pointer()
        self.char_ptr = gdb.lookup_type("char").pointer()
        self.u16_ptr = gdb.lookup_type("unsigned short").pointer()
        self.u32_ptr = gdb.lookup_type("unsigned int").pointer()
        if self.u32_ptr.target().sizeof != 4 or self.u16_ptr.target().sizeof != 2:
            raise gdb.GdbError("zset: unexpected integer sizes")


class _Block(object):
    """One block; see detail/container/block.hpp."""

    def __init__(self, layout, data):
        self.layout = layout
        h = data["h_"]
        if int(h) == 0:
            self.size = 0
            return
        header = h.dereference()
        self.size = int(header["size"])
        self.used = int(header["used"])
        area = int(header["area"])
        if self.size > int(header["capacity"]) or self.used > area:
            raise gdb.GdbError("zset: corrupt block header")
        self.base = h.cast(layout.uchar_ptr)
        self.records = self.base + layout.records_offset
        order_offset = _align_up(layout.records_offset + area * layout.unit, 2)
        self.order = (self.base + order_offset).cast(layout.u16_ptr)

    def element(self, pos):
        """The (member, score) at position `pos` in order."""
        layout = self.layout
        ref = int(self.order[pos])
        if ref >= self.used:
            raise gdb.GdbError("zset: block layout not recognized")
        record = self.records + ref * layout.unit
        score = record.cast(layout.score_type.pointer()).dereference()
        if not layout.byte_members:
            member = (record + layout.member_offset).cast(layout.member_type.pointer())
            return member.dereference(), score
        length_at = record + layout.score_type.sizeof
        length = int(length_at.dereference())
        if length != _LONG_LENGTH:
            if ref + layout.score_type.sizeof + 1 + length > self.used:
                raise gdb.GdbError("zset: block layout not recognized")
            return (length_at + 1).cast(layout.char_ptr).lazy_string(length=length), score
        long_length = int((length_at + 1).cast(layout.u32_ptr).dereference())
        data = (length_at + 5).cast(layout.char_ptr.pointer()).dereference()
        return data.lazy_string(length=long_length), score

    def elements(self):
        """Yields (member, score) for every element, in order."""
        for pos in range(self.size):
            yield self.element(pos)


def _walk(val, limit):
    """Yields up to `limit` (member, score) pairs of set `val` in order (None = all)."""
    produced = 0
    for block in _blocks(val):
        for member, score in block.elements():
            if limit is not None and produced >= limit:
                return
            produced += 1
            yield member, score


def _engine(val):
    """The set's state: its engine (detail::set_engine), the set's one member."""
    return val["engine_"]


def _blocks(val):
    """The set's blocks in order: the listpack block, or the skiplist nodes' blocks."""
    if not _skiplist_mode(val):
        lp = _engine(val)["lp_"]
        if int(lp["h_"]) != 0:
            yield _Block(_BlockLayout(lp.type.strip_typedefs()), lp)
        return
    skiplist = _engine(val)["sk_"].dereference()["list"]
    nodes = skiplist["nodes_"]
    blocks = skiplist["blocks_"]
    if int(nodes) == 0:
        return
    layout = None
    node = _next0(nodes, 0)
    nodes_left = int(skiplist["count_"])
    while node != 0 and nodes_left > 0:
        nodes_left -= 1
        data = blocks[node]
        if layout is None:
            layout = _BlockLayout(data.type.strip_typedefs())
        yield _Block(layout, data)
        node = _next0(nodes, node)


def _next0(nodes, node_id):
    """Level-0 successor id of node `node_id` in the node pool (level 0 is always inline)."""
    return int(nodes[node_id]["low"][0]["next"])


def _skiplist_mode(val):
    """Skiplist mode: the set points to its skiplist state (null in listpack mode)."""
    return int(_engine(val)["sk_"]) != 0


def _set_size(val):
    if _skiplist_mode(val):
        return int(_engine(val)["sk_"].dereference()["list"]["size_"])
    lp = _engine(val)["lp_"]
    return int(lp["h_"].dereference()["size"]) if int(lp["h_"]) != 0 else 0


class SortedSetPrinter(object):
    """zset::sorted_set<...>: size, encoding and the first elements as ["member"] = score."""

    def __init__(self, val):
        self.val = val
        self.note = ""
        self.readable = False
        try:
            self.size = _set_size(val)
            self.encoding = "skiplist" if _skiplist_mode(self.val) else "listpack"
        except (gdb.error, RuntimeError):
            self.size = None  # members renamed: a printer from another zset version
            return
        try:
            for _ in _walk(val, 1):
                pass  # decodes (and checks) the first element
            self.readable = True
        except (gdb.error, gdb.GdbError, RuntimeError, TypeError, ValueError):
            self.note = " [elements not shown: unrecognized layout or unreadable memory]"

    def to_string(self):
        if self.size is None:
            return "zset::sorted_set (layout not recognized by this version of zset_printers.py)"
        noun = "element" if self.size == 1 else "elements"
        text = "zset::sorted_set with %d %s (%s)%s" % (self.size, noun, self.encoding, self.note)
        limit = _element_limit()
        if self.readable and limit is not None and self.size > limit:
            text += ", showing first %d" % limit
        return text

    def display_hint(self):
        return "map"

    def children(self):
        if not self.readable or not self.size:
            return
        try:
            for i, (member, score) in enumerate(_walk(self.val, _element_limit())):
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
    """zset::sorted_set<...>::const_iterator (zset::detail::set_iterator<...>): the element it
    points at, or end()."""
    try:
        if int(val["id_"]) == 0:
            if int(val["list_"]) == 0 and int(val["block_"]["h_"]) == 0:
                return _IteratorTextPrinter("zset iterator (end or singular)")
            return _IteratorTextPrinter("zset iterator (end)")
        data = val["block_"]
        if int(data["h_"]) == 0:
            return _IteratorTextPrinter("zset iterator (singular)")
        block = _Block(_BlockLayout(data.type.strip_typedefs()), data)
        pos = int(val["pos_"])
        if pos >= block.size:
            return _IteratorTextPrinter("zset iterator (invalid: position %d of %d)"
                                        % (pos, block.size))
        member, score = block.element(pos)
        return _IteratorElementPrinter(member, score)
    except (gdb.error, gdb.GdbError, gdb.MemoryError, RuntimeError, TypeError, ValueError):
        return _IteratorTextPrinter("zset iterator (unreadable)")


def build_pretty_printer():
    pp = gdb.printing.RegexpCollectionPrettyPrinter("zset")
    # sorted_set<...>::const_iterator is an alias: gdb looks printers up by the type it names.
    pp.add_printer("sorted_set::const_iterator", r"^zset::detail::set_iterator<.*>$",
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
