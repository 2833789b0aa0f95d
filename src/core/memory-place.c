/* SPDX-License-Identifier: MIT */
#include "basic/util.h"
#include "core/config.h"
#include "core/memory-kind.h"
#include "core/memory-place.h"

unsigned memory_kind_tiers(unsigned kinds) {
        return (kinds & MEMORY_CXL ? TIERS_CXL : 0) | (kinds & (MEMORY_HBM | MEMORY_SPM) ? TIERS_HBM : 0);
}

bool memory_kind_allowed(unsigned kinds, unsigned tiers) {
        if (memory_kind_forbidden(kinds))
                return false;
        /* Every tier the memory belongs to must be asked for: CXL-attached HBM needs both. */
        return (memory_kind_tiers(kinds) & ~tiers) == 0;
}

const char *memory_kind_words(unsigned kinds) {
        if (kinds & MEMORY_GPU)
                return "GPU memory";
        if (kinds & MEMORY_NVM)
                return "persistent memory (NVM)";
        if (kinds & MEMORY_CXL)
                return kinds & (MEMORY_HBM | MEMORY_SPM) ? "CXL memory (CXL-HBM)" : "CXL memory (CXL-DRAM)";
        if (kinds & MEMORY_HBM)
                return "HBM";
        if (kinds & MEMORY_SPM)
                return "specific-purpose memory (SPM, likely HBM)";
        return "DRAM";
}

struct cpuset memory_forbidden_nodes(const struct topology *t) {
        struct cpuset s = {0};
        for (size_t i = 0; i < t->n_nodes; i++)
                if (memory_kind_forbidden(t->nodes[i].memory.kinds))
                        cpuset_set(&s, (unsigned) t->nodes[i].id);
        return s;
}

struct cpuset memory_drop_forbidden(const struct topology *t, struct cpuset *nodes) {
        struct cpuset bad = memory_forbidden_nodes(t);
        cpuset_and(&bad, nodes);
        cpuset_andnot(nodes, &bad);
        return bad;
}

char *memory_forbidden_where(const struct topology *t, int node) {
        const struct node *n = topology_node(t, node);
        unsigned kinds = n ? n->memory.kinds : 0;
        if (n && (kinds & MEMORY_GPU) && n->memory.owner_pci)
                return xasprintf("%s on node %d, owned by %s", memory_kind_words(kinds), node, n->memory.owner_pci);
        return xasprintf("%s on node %d", memory_kind_words(kinds), node);
}

char *memory_targets_check(const struct topology *t, struct cpuset *targets) {
        struct cpuset dropped = memory_drop_forbidden(t, targets);
        struct strbuf b = {0};

        if (cpuset_is_empty(&dropped))
                return NULL;
        CPUSET_FOREACH(n, &dropped) {
                _cleanup_free_ char *where = memory_forbidden_where(t, n);
                strbuf_printf(&b, "%s%s", b.len ? ", " : "", where);
        }
        _cleanup_free_ char *left = cpuset_format(targets);
        strbuf_printf(&b, ": dropped from the targets, since a replica's pages never go there; %s",
                      cpuset_is_empty(targets) ? "no node is left to move them to" : "moving them to ");
        if (!cpuset_is_empty(targets))
                strbuf_printf(&b, "node%s %s", cpuset_count(targets) > 1 ? "s" : "", left);
        return strbuf_steal(&b);
}
