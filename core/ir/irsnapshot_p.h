#pragma once

// Private to core: conversion from libtorch's graph to the plain IR snapshot, and the one place that turns a torch
// node's source range into a SourceLocation. Deliberately free of torch headers (torch types are only
// forward-declared) so that it can be included anywhere in core.

#include "report/irgraph.h"

#include <QString>

#include <functional>

namespace c10 {
struct FunctionSchema;
} // namespace c10

namespace torch {
namespace jit {
struct Block;
struct Graph;
struct Node;
struct SourceRange;
} // namespace jit
} // namespace torch

namespace jitscope {

/// Copies a libtorch graph into core's plain value types. Must be called where torch is initialised.
/// `decorate`, when given, is called for every node to add what the graph itself does not hold (provenance).
IrGraph snapshotGraph(
    const torch::jit::Graph& graph, const std::function<void(const torch::jit::Node*, IrNode&)>& decorate = {});

/// Visits every node of @p block and of the blocks nested in it, in the order the snapshot numbers them
/// (depth-first: a node, then its blocks' nodes, then the next node).
void forEachNode(torch::jit::Block* block, const std::function<void(torch::jit::Node*)>& visit);

/// Where @p range came from in the user's code: an archive's printed code maps back to the source it was compiled
/// from (SourceRange::findSourceRangeThatGenerated); other ranges are returned as they are.
torch::jit::SourceRange originalSourceRange(const torch::jit::SourceRange& range);
/// originalSourceRange() of @p node's source range.
torch::jit::SourceRange originalSourceRange(const torch::jit::Node* node);
/// File, 1-based line and 0-based column of @p range's original range; invalid when it has none.
SourceLocation sourceLocationOf(const torch::jit::SourceRange& range);
/// sourceLocationOf() of @p node's source range: where the node is in the user's code.
SourceLocation sourceLocationOf(const torch::jit::Node* node);

/// "forward(self, x: Tensor, k: int = 2) -> Tensor": a function's signature as FunctionInfo::signature shows it.
QString signatureText(const QString& name, const c10::FunctionSchema& schema);

} // namespace jitscope
