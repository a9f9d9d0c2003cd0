import MathloopReal.ExpBounds
import MathloopReal.Kappa
import MathloopReal.Bridge
