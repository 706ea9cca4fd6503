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


def _field_type(struct_type, name):
    for field in struct_type.fields():
        if field.name == name:
            return field.type.strip_typedefs()
    raise gdb.GdbError("zset: no field %s in %s" % (name, struct_type))


class _BlockLayout(object):
    """Types of one block instantiation; see detail/listpack.hpp. One allocation holds

        std::string members: [header][fingerprints: u8 x cap][lengths: u8 x cap][scores][heap]
        other members:       [header][fingerprints: u8 x cap][scores][members: Member x cap]

    with the scores aligned for Score and the members for Member (cap = header.capacity).
    """

    def __init__(self, block_type):
        self.score_type = block_type.template_argument(0).strip_typedefs()
        self.member_type = block_type.template_argument(1).strip_typedefs()
        self.byte_members = _is_byte_string(self.member_type)
        self.header_size = _field_type(block_type, "h_").target().sizeof
        self.score_align = _alignof(self.score_type)
        self.member_align = 1 if self.byte_members else _alignof(self.member_type)
        self.uchar_ptr = gdb.lookup_type("unsigned char").pointer()
        self.char_ptr = gdb.lookup_type("char").pointer()
        self.u32_ptr = gdb.lookup_type("unsigned int").pointer()
        if self.u32_ptr.target().sizeof != 4:
            raise gdb.GdbError("zset: no 4-byte unsigned int")


class _Layout(_BlockLayout):
    """A skiplist's node layout on top of its block layout (see detail/skiplist.hpp).

    The head sentinel `head_` is allocated with the first node (nullptr while the set has
    never held an element, or after clear()); it has no block. A node's links follow the node
    header in the same allocation, and a link starts with its `next` pointer, so the level-0
    successor of node n is the node* stored at (char*)n + sizeof(node). Level 0 is circular
    through the head.
    """

    def __init__(self, skiplist):
        node_ptr = _field_type(skiplist.type.strip_typedefs(), "head_")
        if node_ptr.code != gdb.TYPE_CODE_PTR:
            raise gdb.GdbError("zset: unexpected skiplist layout")
        node_type = node_ptr.target().strip_typedefs()
        super(_Layout, self).__init__(_field_type(node_type, "data"))
        self.node_size = node_type.sizeof
        self.next_ptr = node_ptr.pointer()

    def first(self, head):
        return self.next0(head)

    def next0(self, node):
        """Level-0 successor of `node` (a node*)."""
        return (node.cast(self.uchar_ptr) + self.node_size).cast(self.next_ptr).dereference()


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
        fingerprints_offset = layout.header_size
        metadata_end = fingerprints_offset + cap * (2 if layout.byte_members else 1)
        scores_offset = _align_up(metadata_end, layout.score_align)
        scores_end = scores_offset + cap * layout.score_type.sizeof
        self.scores = (self.base + scores_offset).cast(layout.score_type.pointer())
        if layout.byte_members:
            self.lengths = self.base + fingerprints_offset + cap
            self.heap = self.base + scores_end
            self._check_heap(int(header["long_members"]))
        else:
            members_offset = _align_up(scores_end, layout.member_align)
            self.members = (self.base + members_offset).cast(layout.member_type.pointer())

    def _check_heap(self, long_members):
        """The length bytes must account for exactly heap_used bytes and long_members long
        records: a cheap check that the layout assumed here is the library's."""
        offset = longs = 0
        lengths = gdb.selected_inferior().read_memory(int(self.lengths), self.size).tobytes()
        for length in bytearray(lengths):
            if length == _LONG_LENGTH:
                longs += 1
                length = 4 + int((self.heap + offset).cast(self.layout.u32_ptr).dereference())
            offset += length
            if offset > self.heap_used:
                break
        if offset != self.heap_used or longs != long_members:
            raise gdb.GdbError("zset: block layout not recognized")

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
    head = skiplist["head_"]
    if int(head) == 0:
        return
    produced = 0
    node = layout.first(head)
    nodes_left = int(skiplist["nodes_"])
    while int(node) != int(head) and nodes_left > 0:
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
        self.note = ""
        self.layout = None
        try:
            self.skiplist = val["list_"]
            self.size = int(self.skiplist["size_"])
            self.encoding = "skiplist" if bool(self.val["skiplist_mode_"]) else "listpack"
        except (gdb.error, RuntimeError):
            self.size = None  # members renamed: a printer from another zset version
            return
        try:
            self.layout = _Layout(self.skiplist)
        except (gdb.error, gdb.GdbError, RuntimeError, TypeError, ValueError):
            self.layout = None  # unsupported instantiation: summary only
        if self.layout is not None and self.size > 0:
            try:
                for _ in _walk(self.layout, self.skiplist, 1):
                    pass  # decodes (and checks) the first block
            except (gdb.error, gdb.GdbError, RuntimeError, TypeError, ValueError):
                self.layout = None
                self.note = " [elements not shown: unrecognized layout or unreadable memory]"

    def to_string(self):
        if self.size is None:
            return "zset::sorted_set (layout not recognized by this version of zset_printers.py)"
        noun = "element" if self.size == 1 else "elements"
        text = "zset::sorted_set with %d %s (%s)%s" % (self.size, noun, self.encoding, self.note)
        limit = _element_limit()
        if self.layout is not None and limit is not None and self.size > limit:
            text += ", showing first %d" % limit
        return text

    def display_hint(self):
        return "map"

    def children(self):
        if self.layout is None or not self.size:
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
        # end() of a set that has no head sentinel yet, or a default-constructed iterator
        return _IteratorTextPrinter("zset iterator (end or singular)")
    try:
        data = node.dereference()["data"]
        if int(data["h_"]) == 0:
            # Only the head sentinel has no block: this is end() (or rend().base()).
            return _IteratorTextPrinter("zset iterator (end)")
        block = _Block(_BlockLayout(data.type.strip_typedefs()), data)
        index = int(val["index_"])
        if index >= block.size:
            return _IteratorTextPrinter("zset iterator (invalid: index %d of %d)"
                                        % (index, block.size))
        member, score = block.element(index, int(val["offset_"]))
        return _IteratorElementPrinter(member, score)
    except (gdb.error, gdb.GdbError, gdb.MemoryError, RuntimeError, TypeError, ValueError):
        return _IteratorTextPrinter("zset iterator (unreadable, node %s, index %d)"
                                    % (node, int(val["index_"])))


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
