class ShapeBranch(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  proj : __torch__.torch.nn.modules.linear.Linear
  def forward(self: __torch__.modules.ShapeBranch,
    x: Tensor) -> Tensor:
    if torch.eq(torch.dim(x), 3):
      b, t, f, = torch.size(x)
      proj = self.proj
      _1 = torch.reshape(x, [torch.mul(b, t), f])
      _2 = torch.reshape((proj).forward(_1, ), [b, t, f])
      _0 = _2
    else:
      if torch.gt((torch.size(x))[0], 2):
        proj0 = self.proj
        _4 = (proj0).forward(torch.slice(x, 0, None, 2), )
        _3 = _4
      else:
        proj1 = self.proj
        _3 = (proj1).forward(x, )
      _0 = _3
    return _0
