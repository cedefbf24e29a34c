class FinalConst(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  lin : __torch__.torch.nn.modules.linear.Linear
  repeats : Final[int] = 3
  scale : Final[float] = 0.5
  def forward(self: __torch__.modules.FinalConst,
    x: Tensor) -> Tensor:
    x0 = x
    for _0 in range(3):
      lin = self.lin
      x1 = torch.mul((lin).forward(x0, ), 0.5)
      x0 = x1
    return x0
