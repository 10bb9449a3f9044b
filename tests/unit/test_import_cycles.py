"""No two modules of aish import each other, directly or through others (issue 20's bar).

A circle means two modules are one concept split in two, or a face that imports what imports
it; `make lint`'s contracts check the doors between rooms, this checks every module. Imports
under `if TYPE_CHECKING:` count too: a circle of types is still a circle to read.
"""

from __future__ import annotations

import grimp


def test_no_module_imports_itself_through_others() -> None:
    graph = grimp.build_graph("aish")
    circles = [
        graph.find_shortest_chain(importer=imported, imported=importer)
        for importer in sorted(graph.modules)
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if graph.chain_exists(importer=imported, imported=importer)
    ]
    assert circles == []
