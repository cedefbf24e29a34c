# torchvision's resnet18 (weights=None) traced at 224x224 and checked at two other image sizes.
import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.resnet18(weights=None).eval()
traced = torch.jit.trace(model, torch.rand(1, 3, 224, 224),
                         check_inputs=[(torch.rand(1, 3, 160, 160),), (torch.rand(1, 3, 256, 256),)])
