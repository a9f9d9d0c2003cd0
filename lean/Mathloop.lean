import Mathloop.Basic
