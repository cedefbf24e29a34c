#pragma once

// Private to core: conversion from libtorch's graph to the plain IR snapshot.
// Deliberately free of torch headers so that it can be included anywhere in core.

#include "ir/irgraph.h"

#include <functional>

namespace torch {
namespace jit {
struct Block;
struct Graph;
struct Node;
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

} // namespace jitscope
