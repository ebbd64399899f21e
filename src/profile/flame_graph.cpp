// Differential flame graphs from two profiles' call graphs (flame_graph.hpp).
#include "profile/flame_graph.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace benchledger::profile {

namespace {

constexpr const char* k_other = "(other functions)";

// A path's cost on one side, by the names along it.
using PathCosts = std::map<std::vector<std::string>, double>;

// One side's call graph, walked from its roots.
class CallGraphWalk {
 public:
  CallGraphWalk(const CallGraph& graph, std::size_t max_depth)
      : m_graph(graph), m_max_depth(max_depth) {
    const std::size_t n = graph.functions.size();
    m_calls.resize(n);
    // What a function hands out to its callees: its inclusive cost, or what its calls add up to
    // where they say more (a profile written by hand, or damaged), so that no path costs more
    // than its caller and the walk stays bounded.
    m_divisor.resize(n);
    for (std::size_t f = 0; f < n; ++f) m_divisor[f] = graph.functions[f].inclusive;
    std::vector<double> calls_sum(n, 0);
    std::vector<bool> called(n, false);
    for (const CallGraph::Call& call : graph.calls) {
      m_calls[call.caller].push_back(&call);
      calls_sum[call.caller] += std::max(call.instructions, 0.0);
      if (call.callee && *call.callee != call.caller) called[*call.callee] = true;
    }
    for (std::size_t f = 0; f < n; ++f) {
      m_divisor[f] = std::max(m_divisor[f], calls_sum[f]);
      if (!called[f]) {
        m_roots.push_back(f);
        m_roots_cost += std::max(graph.functions[f].inclusive, 0.0);
      }
    }
  }

  // The roots' cost together: what the widest row can hold.
  double roots_cost() const { return m_roots_cost; }

  // Every path of at least `min_cost` (more than 0).
  PathCosts walk(double min_cost) {
    m_min_cost = min_cost;
    for (const std::size_t root : m_roots) expand(root, m_graph.functions[root].inclusive);
    return std::move(m_costs);
  }

 private:
  void expand(std::size_t function, double cost) {
    if (cost <= 0 || cost < m_min_cost) return;
    m_path.push_back(m_graph.functions[function].name);
    m_on_path.push_back(function);
    m_costs[m_path] += cost;
    if (m_path.size() < m_max_depth && m_divisor[function] > 0) {
      const double share = cost / m_divisor[function];
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
  std::size_t m_max_depth;
  double m_min_cost = 0;
  double m_roots_cost = 0;
  std::vector<double> m_divisor;
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
  CallGraphWalk base_walk(base.call_graph, max_depth), head_walk(head.call_graph, max_depth);
  // At most 1/min_share frames a row and side, whatever the figures say.
  const double scale = std::max({base.total.instructions, head.total.instructions,
                                 base_walk.roots_cost(), head_walk.roots_cost()});
  const double min_cost = std::max(scale * min_share, std::numeric_limits<double>::min());
  Node root;
  for (const auto& [path, cost] : base_walk.walk(min_cost)) {
    Node* node = &root;
    for (const std::string& name : path) node = &node->children[name];
    node->base = cost;
  }
  for (const auto& [path, cost] : head_walk.walk(min_cost)) {
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
