import torch
import jitscope_no_such_package  # noqa: F401
