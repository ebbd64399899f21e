// Differential flame graphs from two profiles' call graphs (flame_graph.hpp).
#include "profile/flame_graph.hpp"

#include <algorithm>
#include <map>

namespace benchledger::profile {

namespace {

constexpr const char* k_other = "(other functions)";

// A path's cost on one side, by the names along it.
using PathCosts = std::map<std::vector<std::string>, double>;

// One side's call graph, walked from its roots.
class CallGraphWalk {
 public:
  CallGraphWalk(const CallGraph& graph, double min_cost, std::size_t max_depth)
      : m_graph(graph), m_min_cost(min_cost), m_max_depth(max_depth) {
    const std::size_t n = graph.functions.size();
    m_calls.resize(n);
    std::vector<bool> called(n, false);
    for (const CallGraph::Call& call : graph.calls) {
      m_calls[call.caller].push_back(&call);
      if (call.callee && *call.callee != call.caller) called[*call.callee] = true;
    }
    for (std::size_t f = 0; f < n; ++f) {
      if (!called[f]) m_roots.push_back(f);
    }
  }

  PathCosts walk() {
    for (const std::size_t root : m_roots) expand(root, m_graph.functions[root].inclusive);
    return std::move(m_costs);
  }

 private:
  void expand(std::size_t function, double cost) {
    if (cost <= 0 || cost < m_min_cost) return;
    m_path.push_back(m_graph.functions[function].name);
    m_on_path.push_back(function);
    m_costs[m_path] += cost;
    const double inclusive = m_graph.functions[function].inclusive;
    if (m_path.size() < m_max_depth && inclusive > 0) {
      const double share = cost / inclusive;
      for (const CallGraph::Call* call : m_calls[function]) {
        const double part = call->instructions * share;
        if (!call->callee) {
          if (part > 0 && part >= m_min_cost && m_path.size() < m_max_depth) {
            m_path.push_back(k_other);
            m_costs[m_path] += part;
            m_path.pop_back();
          }
        } else if (std::find(m_on_path.begin(), m_on_path.end(), *call->callee) ==
                   m_on_path.end()) {
          expand(*call->callee, part);
        }
      }
    }
    m_path.pop_back();
    m_on_path.pop_back();
  }

  const CallGraph& m_graph;
  double m_min_cost;
  std::size_t m_max_depth;
  std::vector<std::vector<const CallGraph::Call*>> m_calls;
  std::vector<std::size_t> m_roots;
  std::vector<std::string> m_path;
  std::vector<std::size_t> m_on_path;
  PathCosts m_costs;
};

struct Node {
  double base = 0, head = 0;
  std::map<std::string, Node> children;  // by name: the same order on both sides
};

void lay_out(const std::map<std::string, Node>& children, std::size_t depth, double start,
             const std::map<std::string, const FunctionCost*>& where, FlameGraph& graph) {
  for (const auto& [name, node] : children) {
    if (node.head <= 0) continue;  // a path the head no longer takes has no width
    FlameFrame frame{name, std::nullopt, std::nullopt, depth, start, node.base, node.head};
    if (const auto found = where.find(name); found != where.end()) {
      frame.file = found->second->file;
      frame.line = found->second->line;
    }
    graph.frames.push_back(std::move(frame));
    graph.depth = std::max(graph.depth, depth + 1);
    lay_out(node.children, depth + 1, start, where, graph);
    start += node.head;
  }
}

}  // namespace

FlameGraph differential_flame_graph(const Profile& base, const Profile& head, double min_share,
                                    std::size_t max_depth) {
  FlameGraph graph;
  if (base.call_graph.functions.empty() || head.call_graph.functions.empty()) return graph;
  const double scale = std::max(base.total.instructions, head.total.instructions);
  const double min_cost = scale * min_share;
  Node root;
  for (const auto& [path, cost] : CallGraphWalk(base.call_graph, min_cost, max_depth).walk()) {
    Node* node = &root;
    for (const std::string& name : path) node = &node->children[name];
    node->base = cost;
  }
  for (const auto& [path, cost] : CallGraphWalk(head.call_graph, min_cost, max_depth).walk()) {
    Node* node = &root;
    for (const std::string& name : path) node = &node->children[name];
    node->head = cost;
  }
  // The head's file and line of a name (the code as it is now), else the base's.
  std::map<std::string, const FunctionCost*> where;
  for (const Profile* side : {&head, &base}) {
    for (const FunctionCost& f : side->functions) where.emplace(f.name, &f);
  }
  for (const auto& [name, node] : root.children) graph.width += node.head;
  lay_out(root.children, 0, 0, where, graph);
  return graph;
}

}  // namespace benchledger::profile
