#include "yamlbudget.h"

#include <vector>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::detail {

bool YamlBudget::check(const YAML::Node &root, InventoryDiagnostics &diagnostics)
{
    qint64 nodes = 0;
    qint64 bytes = 0;
    // Depth first with an explicit stack: a deeply nested file must not
    // exhaust the thread's stack either.
    std::vector<YAML::Node> pending{root};
    while (!pending.empty()) {
        const YAML::Node node = pending.back();
        pending.pop_back();
        ++nodes;
        if (node.IsScalar())
            bytes += qint64(node.Scalar().size());
        if (nodes > kMaxNodes || bytes > kMaxScalarBytes) {
            diagnostics.add(positionOf(node.Mark()), QString(),
                            u"the inventory holds more than %1, counting each alias as a copy of "
                            "what it names (the limit is %2 nodes and %3 bytes of text): refused "
                            "before reading it"_s
                                .arg(nodes > kMaxNodes ? u"%1 nodes"_s.arg(kMaxNodes)
                                                       : u"%1 bytes"_s.arg(kMaxScalarBytes))
                                .arg(kMaxNodes)
                                .arg(kMaxScalarBytes));
            return false;
        }
        if (node.IsSequence()) {
            for (std::size_t i = node.size(); i-- > 0;)
                pending.push_back(node[i]);
        } else if (node.IsMap()) {
            for (auto it = node.begin(); it != node.end(); ++it) {
                pending.push_back(it->second);
                pending.push_back(it->first);
            }
        }
    }
    return true;
}

} // namespace opsdeck::inventory::detail
