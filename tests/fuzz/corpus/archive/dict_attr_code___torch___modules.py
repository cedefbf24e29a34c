class DictAttr(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  tables : Dict[str, Tensor]
  sizes : Dict[str, int]
  names : List[str]
  offset : float
  def forward(self: __torch__.modules.DictAttr,
    key: str,
    x: Tensor) -> Tensor:
    tables = self.tables
    t = tables[key]
    sizes = self.sizes
    n = sizes[key]
    _0 = torch.add(torch.mul(x, t), float(n))
    offset = self.offset
    return torch.add(_0, offset)
